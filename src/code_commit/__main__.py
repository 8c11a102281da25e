from code_commit.cli.app import main

main()
