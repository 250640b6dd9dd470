"""The project the editor tests open (tests/lsp/nvim_lsp_test.py, tests/lsp/emacs_lsp_test.py): one
CUDA file with a fixable syncwatch-sync-memcpy at line 31 and a memset note, and a
compile_commands.json beside it, as a CMake build would leave them."""
import json
import os
import shutil

FLAGS = "clang++ -x cuda --cuda-host-only -Wno-unknown-cuda-version --cuda-path=/usr/local/cuda -std=c++17 -c"
FIXED_CALL = "cudaMemcpyAsync(d_prev_saved"


def make_project(tmp, repo_root):
    """Returns (project directory, the CUDA file's path)."""
    project = os.path.join(tmp, "project")
    os.makedirs(os.path.join(project, "src"))
    flow = os.path.join(project, "src", "flow.cu")
    shutil.copy(os.path.join(repo_root, "test_inputs", "static", "sm_pos_single_stream_fixable.cu"), flow)
    with open(os.path.join(project, "compile_commands.json"), "w") as f:
        json.dump([{"directory": project, "command": f"{FLAGS} {flow}", "file": flow}], f)
    return project, flow


def disk_unchanged(flow):
    """The fix went into the editor's buffer, not onto the disk."""
    with open(flow) as f:
        return FIXED_CALL not in f.read()


def editor_env(tmp, **extra):
    """A throw-away home: no user configuration reaches the editor."""
    return dict(os.environ, HOME=tmp, XDG_CONFIG_HOME=tmp, XDG_DATA_HOME=tmp, XDG_STATE_HOME=tmp,
                XDG_CACHE_HOME=tmp, **extra)
