"""Small leaves every layer of kvec may import: the checks of public arguments
(:mod:`kvec.common.arguments`), the cycle collector paused while a batch is made
(:mod:`kvec.common.collector`), progress bars (:mod:`kvec.common.progress`) and ragged id rows
(:mod:`kvec.common.ragged`)."""
