"""``python -m calreport``: the command-line interface, as the ``calreport`` script.

Examples
--------
.. code-block:: bash

    python -m calreport summary predictions.csv --y y_true --proba score
    python -m calreport demo -o calreport-demo.html
"""

from __future__ import annotations

import sys

from calreport.cli import main

if __name__ == "__main__":
    sys.exit(main())
