import pytest
import torch
from threadpoolctl import threadpool_limits


@pytest.fixture(autouse=True, scope="module")
def one_thread():
    """The tiny torch models and trees run fastest on one thread on a shared machine."""
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    with threadpool_limits(limits=1):
        yield
    torch.set_num_threads(threads)
