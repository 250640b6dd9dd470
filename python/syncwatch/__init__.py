"""syncwatch: finds implicit CUDA synchronization and measures what it costs.

The wheel carries the runtime half: ``libsyncwatch.so`` (loaded with LD_PRELOAD, built on
CUPTI) and the ``syncwatch`` command. ``python -m syncwatch run -- python train.py`` runs a
job with it; ``preload_library()`` gives the library's path for launchers of your own.
"""
import os
import sys

__version__ = "0.1.0"

_HERE = os.path.dirname(os.path.abspath(__file__))


def executable():
    """The path of the bundled ``syncwatch`` command."""
    return os.path.join(_HERE, "bin", "syncwatch")


def preload_library():
    """The path of ``libsyncwatch.so``, for LD_PRELOAD."""
    return os.path.join(_HERE, "lib", "libsyncwatch.so")


def cupti_library_dirs():
    """Directories holding ``libcupti.so.13`` from the nvidia-cuda-cupti wheel.

    libsyncwatch.so's RUNPATH already names ``../../nvidia/cu13/lib``, which is right when
    both wheels are in one site-packages. With ``pip install --target`` or a user site they
    are not, so every sys.path entry is searched, as PyTorch does for its own CUDA wheels.
    """
    found = []
    for entry in sys.path:
        for sub in (("nvidia", "cu13", "lib"), ("nvidia", "cuda_cupti", "lib")):
            d = os.path.join(entry or os.getcwd(), *sub)
            if os.path.exists(os.path.join(d, "libcupti.so.13")) and d not in found:
                found.append(d)
    return found


def environment(base=None):
    """``base`` (default: os.environ) with what a child needs to load libsyncwatch.so."""
    env = dict(os.environ if base is None else base)
    dirs = cupti_library_dirs()
    if dirs:
        old = env.get("LD_LIBRARY_PATH", "")
        parts = [d for d in dirs if d not in old.split(":")]
        if parts:
            env["LD_LIBRARY_PATH"] = ":".join(parts + ([old] if old else []))
    return env
