"""The plotting modules' error for bad input (one line on standard error, exit status 2), in a
module of its own so plot.py run as `python3 -m collsim.plot` and timeline.py share one class."""


class UserError(Exception):
    """Bad input: reported in one line, exit status 2."""
