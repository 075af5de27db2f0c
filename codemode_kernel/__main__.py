"""``python -m codemode_kernel -f {connection_file}`` starts the Code Mode kernel.

``python -m codemode_kernel install [--user | --sys-prefix | --prefix DIR]`` installs the
kernelspec by hand (``pip install`` already does it, as wheel shared data).
"""

import sys

if len(sys.argv) > 1 and sys.argv[1] == "install":
    from codemode_kernel.kernel.install import main as install

    sys.exit(install(sys.argv[2:]))
else:
    from codemode_kernel.kernel.kernel import main

    main()
