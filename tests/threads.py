"""Running one function over many inputs from several threads at once, for the concurrency tests."""

import threading


def in_threads(function, inputs, threads=8):
    """``[function(x) for x in inputs]``, with ``threads`` threads taking the inputs in turn."""
    results = [None] * len(inputs)

    def work(k):
        for i in range(k, len(inputs), threads):
            results[i] = function(inputs[i])

    workers = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    return results
