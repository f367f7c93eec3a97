from pybroker.cli import main
import sys
sys.exit(main())
