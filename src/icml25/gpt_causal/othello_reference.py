"""A plain Python 6x6 Othello engine (lists and loops, one game at a time): the reference the
bitboard engine of ``othello.py`` is checked against in the tests and timed against in the
benchmark. Board cells hold 0 (empty), 1 (black) or -1 (white)."""

from __future__ import annotations

SIZE = 6
_STEPS = ((0, 1), (0, -1), (1, 0), (-1, 0), (1, 1), (1, -1), (-1, 1), (-1, -1))


class ReferenceOthello:
    """One game: ``board[r][c]``, ``player`` (1 black, -1 white) to move."""

    def __init__(self) -> None:
        self.board = [[0] * SIZE for _ in range(SIZE)]
        self.board[2][2] = self.board[3][3] = -1
        self.board[2][3] = self.board[3][2] = 1
        self.player = 1

    def flips(self, square: int) -> list[int]:
        """The squares flipped by the side to move playing ``square`` (empty if illegal)."""
        r0, c0 = divmod(square, SIZE)
        if self.board[r0][c0] != 0:
            return []
        out = []
        for dr, dc in _STEPS:
            run = []
            r, c = r0 + dr, c0 + dc
            while 0 <= r < SIZE and 0 <= c < SIZE and self.board[r][c] == -self.player:
                run.append(r * SIZE + c)
                r, c = r + dr, c + dc
            if run and 0 <= r < SIZE and 0 <= c < SIZE and self.board[r][c] == self.player:
                out.extend(run)
        return out

    def legal_moves(self) -> list[int]:
        return [s for s in range(SIZE * SIZE) if self.flips(s)]

    def play(self, square: int) -> None:
        """Play a legal move, then pass the turn (twice over if the next side cannot move)."""
        flipped = self.flips(square)
        if not flipped:
            raise ValueError(f"square {square} is not a legal move")
        for s in flipped + [square]:
            self.board[s // SIZE][s % SIZE] = self.player
        self.player = -self.player
        if not self.legal_moves():
            self.player = -self.player  # pass (the game is over if this side cannot move either)

    def stones(self, colour: int) -> set[int]:
        return {
            r * SIZE + c for r in range(SIZE) for c in range(SIZE) if self.board[r][c] == colour
        }
