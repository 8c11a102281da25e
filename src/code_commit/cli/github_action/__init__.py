"""The GitHub Action (action.yml at the repository's root): each of its steps is one function of
`steps`, run as `python3 -I .../github_action/__main__.py STEP` so the tests run the very code a
runner runs. Stdlib only, like the leaves it reads (exits, schemas, credentials, paths): the report
and summary steps must work even when installing code-commit failed.

The untrusted parts: the record's strings (the model's text, the build's output, the paths the
model chose) and everything code-commit and the build print. They reach the job log only while
workflow commands are stopped, the outputs file only under a delimiter nobody can guess, and the
job summary only escaped.
"""
