# Read by Cython when setup.py compiles models.py (the source either way): the functions
# symbolic.pxd declares (`S.symbols`, `S.ndim`...) become direct C calls, not Python calls of a
# module attribute. analyzer/_fresh.py: CIMPORTS.
from analyzer cimport symbolic as S
