"""The tests are the spec: under `tests = "protect"` the existing tests and the test runners'
configuration are read-only to the model and its build, new test files are kept but judged apart,
and a pass is what the runners' own counts say against the baseline's.

`files`: which paths are tests; `runners`: the runners' configuration, as data; `rule`: what an
answer or a build did to either; `counts`: the runners' counts judged against the baseline's.
"""
