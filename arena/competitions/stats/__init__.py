"""Statistics of comparisons and ladders: pure functions, no Django, no I/O.

- ``elo``: logistic Elo and scores, the score of paired games with its 95 % interval;
- ``sprt``: the generalized SPRT on pentanomial (paired) results, as fishtest runs it;
- ``ranking``: ranks with a forfeited seat last, and head-to-head scores;
- ``batch``: a batch Plackett–Luce fit over all of a ladder's matches (needs ``choix``; import it
  explicitly, so the rest needs no numpy).
"""
from .elo import PENTANOMIAL_VALUES, PairedEstimate, logistic_elo, logistic_score, paired_estimate
from .ranking import forfeit_last, head_to_head
from .sprt import (Decision, DuplicateSprt, Verdict, constrained_mle, llr, pentanomial_llr, sprt_bounds)

__all__ = [
    "PENTANOMIAL_VALUES", "PairedEstimate", "logistic_elo", "logistic_score", "paired_estimate",
    "forfeit_last", "head_to_head",
    "Decision", "DuplicateSprt", "Verdict", "constrained_mle", "llr", "pentanomial_llr", "sprt_bounds",
]
