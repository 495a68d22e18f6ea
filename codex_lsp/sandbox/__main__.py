"""`python -m codex_lsp.sandbox`: run a command inside the Linux sandbox.

`wrap_command` runs this file by path under `python -I -S`, without site-packages,
to keep start-up short; it then finds the package next to itself.
"""

if __name__ == "__main__":
    if not __package__:
        import os
        import sys

        package_dir = os.path.dirname(os.path.abspath(__file__))
        sys.path.insert(0, os.path.dirname(os.path.dirname(package_dir)))
    from codex_lsp.sandbox._launch import main

    main()
