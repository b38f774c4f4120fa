"""Geometry of the room, the moves, the lattice routes and the first-person views."""

import numpy as np
import pytest

from icml25.embodiedbench import objects as ob
from icml25.embodiedbench.render import render
from icml25.embodiedbench.route import DIRECTIONS, action_for, shortest_moves
from icml25.embodiedbench.world import STEP, Pose, Room, distance, generate_room, move


def empty_room(objects=(0,), positions=((3.0, 5.0),), boxes=()):
    boxes = np.asarray(boxes, dtype=float).reshape(-1, 4)
    return Room(
        (6.0, 8.0),
        boxes,
        np.full((len(boxes), 3), 120, np.uint8),
        np.array(objects),
        np.array(positions, dtype=float),
    )


def test_catalogue_colours_and_descriptions_are_unique():
    assert len({t.rgb for t in ob.CATALOGUE}) == len(ob.CATALOGUE)
    assert len({(t.colour_name, t.shape) for t in ob.CATALOGUE}) == len(ob.CATALOGUE)


@pytest.mark.parametrize("heading", [0.0, 90.0, 180.0, 270.0])
def test_each_move_goes_0_25_m_the_way_it_says(heading):
    room, pose = empty_room(), Pose(3.0, 3.0, heading)
    forward = np.array([np.sin(np.radians(heading)), np.cos(np.radians(heading))])
    right = np.array([forward[1], -forward[0]])  # clockwise quarter turn
    for action, expected in zip(range(4), (forward, -forward, right, -right), strict=True):
        after, ok = move(room, pose, action)
        assert ok
        np.testing.assert_allclose([after.x - 3.0, after.y - 3.0], STEP * expected, atol=1e-12)
        assert after.heading == heading
    assert move(room, pose, 4)[0].heading == (heading + 90) % 360
    assert move(room, pose, 5)[0].heading == (heading - 90) % 360


def test_walls_furniture_and_tilt_limits_refuse_the_action():
    room = empty_room(boxes=[[2.5, 3.4, 3.5, 4.0]])
    pose = Pose(3.0, 3.0, 0.0)  # the box is 0.4 m ahead: a step would touch it
    after, ok = move(room, pose, 0)
    assert not ok and after == pose
    at_wall = Pose(0.3, 3.0, 270.0)
    assert move(room, at_wall, 0) == (at_wall, False)
    up, ok = move(room, pose, 6)
    assert ok and up.pitch == 30.0
    assert move(room, up, 6) == (up, False)


def test_action_for_turns_a_world_direction_into_the_right_move():
    room = empty_room()
    for heading in (0.0, 90.0, 180.0, 270.0):
        for d, step in enumerate(DIRECTIONS):
            after, ok = move(room, Pose(3.0, 3.0, heading), action_for(d, heading))
            assert ok
            np.testing.assert_allclose([after.x - 3.0, after.y - 3.0], STEP * step, atol=1e-12)


def test_shortest_moves_reach_the_goal_and_go_round_furniture():
    room = empty_room(positions=((3.0, 6.5),), boxes=[[1.0, 4.0, 5.0, 4.5]])
    pose = Pose(3.0, 2.0, 0.0)
    path = shortest_moves(room, pose, room.positions[0])
    for d in path:
        pose, ok = move(room, pose, action_for(d, pose.heading))
        assert ok
    assert distance(room, pose, 0) <= 1.0
    # straight ahead would be (6.5 - 1 - 2) / 0.25 = 14 moves; the wall makes it longer
    assert len(path) > 14
    open_room = empty_room(positions=((3.0, 6.5),))
    assert len(shortest_moves(open_room, Pose(3.0, 2.0, 0.0), open_room.positions[0])) == 14


def test_a_target_ahead_is_drawn_in_the_centre_and_hidden_behind_furniture():
    kind = ob.CATALOGUE[0]
    room = empty_room(positions=((3.0, 5.0),))
    seen = (render(room, Pose(3.0, 2.0, 0.0)) == kind.rgb).all(axis=-1)
    columns = np.nonzero(seen)[1]
    assert seen.sum() > 4 and abs(columns.mean() - 64) < 3
    behind = (render(room, Pose(3.0, 2.0, 180.0)) == kind.rgb).all(axis=-1)
    assert not behind.any()
    blocked = empty_room(positions=((3.0, 5.0),), boxes=[[2.0, 3.5, 4.0, 4.0]])
    assert not (render(blocked, Pose(3.0, 2.0, 0.0)) == kind.rgb).all(axis=-1).any()


def test_render_shape_and_floor_moves_with_the_agent():
    room = generate_room(np.random.default_rng(3))
    a = render(room, Pose(2.0, 2.0, 0.0), 64, 48)
    b = render(room, Pose(2.0, 2.25, 0.0), 64, 48)
    assert a.shape == (48, 64, 3) and a.dtype == np.uint8
    assert (a != b).any()


def test_distance_is_the_floor_plane_euclidean_distance():
    room = generate_room(np.random.default_rng(3))
    pose = Pose(1.25, 2.5, 0)
    for k, (x, y) in enumerate(room.positions):
        assert distance(room, pose, k) == pytest.approx(np.hypot(x - 1.25, y - 2.5), rel=1e-15)
