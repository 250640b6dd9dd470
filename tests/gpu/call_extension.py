"""Calls a C++ extension (tests/gpu/swext.cpp) that makes pageable async copies: syncwatch
must name this script's line and keep the extension's line as the native site."""
import swext


def upload():
    return swext.roundtrip(20)  # EXT-CALL


upload()
print("extension done")
