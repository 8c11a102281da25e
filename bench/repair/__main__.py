from bench.repair.run import main

raise SystemExit(main())
