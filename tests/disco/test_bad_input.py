"""Bad input to the film scores is refused, naming the argument."""

import numpy as np
import pytest

from icml25.disco.scoring import film_scores

HITS = np.array([True, False, True])
INDEX = np.array([0, 1, 1])


@pytest.mark.parametrize(
    ("hits", "movie_index", "message"),
    [
        (HITS, np.array([0, 1, 5]), "movie_index must be <= 1"),
        (HITS, np.array([0, -1, 1]), "movie_index must be >= 0"),
        (HITS, np.array([0, 0.5, 1]), "movie_index must hold integers"),
        (np.array([1.0, np.nan, 1.0]), INDEX, "hits must hold 0 or 1"),
        (np.array([1, 3, 1]), INDEX, "hits must hold 0 or 1"),
        (HITS[:2], INDEX, "hits and movie_index must have the same shape"),
    ],
)
def test_bad_input_is_refused_by_name(hits, movie_index, message):
    with pytest.raises(ValueError, match=message):
        film_scores(hits, movie_index, n_films=2)
