import sys

from nerts_referee.cli import main

sys.exit(main())
