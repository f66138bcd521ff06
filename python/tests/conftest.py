"""What every test file shares when pytest runs on each PE (mpirun / srun start one pytest per PE).

- `shmem`: kishmem initialized once per process (finalized when the session ends).
- A time limit per test (KISHMEM_PYTEST_TIMEOUT, 60 s): a test that outlives it prints every
  thread's stack and ends the process, so a hang fails the run instead of stalling it.
- The first failing test ends this PE at once (status 1): its peers would otherwise wait in the
  next collective call. The launcher then ends the job.
- At the end, "PASS python FILE on N PEs" when every test ran and passed; a run whose tests were
  all skipped exits 77 (CTest's skip), so a skipped run never reads as a pass.
"""
import faulthandler
import os
import sys

import pytest

TIMEOUT = float(os.environ.get("KISHMEM_PYTEST_TIMEOUT", "60"))
_counts = {"passed": 0, "skipped": 0}
_npes = [None]


def torchrun():
    """Started by torchrun (no PMIx, no MPI): kishmem finds its peers through torch.distributed's
    store, as users start it there (init_process_group first)."""
    return "TORCHELASTIC_RUN_ID" in os.environ


@pytest.fixture(scope="session")
def shmem():
    import kishmem
    if not kishmem.initialized():
        if torchrun():
            import torch.distributed as dist
            if not dist.is_initialized():
                dist.init_process_group("gloo")
        kishmem.init()
    _npes[0] = kishmem.n_pes()
    return kishmem


@pytest.fixture(autouse=True)
def _time_limit():
    faulthandler.dump_traceback_later(TIMEOUT, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


def pytest_runtest_logreport(report):
    if report.when == "call" and report.passed:
        _counts["passed"] += 1
    if report.skipped:
        _counts["skipped"] += 1
    if report.failed:
        sys.stdout.write(f"\nFAILED {report.nodeid} ({report.when}) on PE {os.environ.get('OMPI_COMM_WORLD_RANK', os.environ.get('SLURM_PROCID', os.environ.get('RANK', '?')))}:\n"
                         f"{report.longreprtext}\n")
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(1)


def pytest_sessionfinish(session, exitstatus):
    kishmem = sys.modules.get("kishmem")
    if kishmem is not None and kishmem.initialized():
        _npes[0] = kishmem.n_pes()
        kishmem.barrier_all()
        kishmem.finalize()
    files = " ".join(os.path.basename(a.split("::")[0]) for a in session.config.args)
    if exitstatus == 0 and _counts["passed"] > 0:
        n = _npes[0] if _npes[0] is not None else int(os.environ.get("OMPI_COMM_WORLD_SIZE", os.environ.get("SLURM_NTASKS", "1")))
        print(f"\nPASS python {files} on {n} PEs", flush=True)
    elif exitstatus == 0 and _counts["skipped"] > 0:
        print(f"\nSKIP: every test of {files} was skipped", flush=True)
        session.exitstatus = 77


def world_size():
    """The PE count the launcher started (to check n_pes against)."""
    for v in ("OMPI_COMM_WORLD_SIZE", "SLURM_NTASKS", "PMIX_SIZE", "WORLD_SIZE"):
        if v in os.environ:
            return int(os.environ[v])
    return 1
