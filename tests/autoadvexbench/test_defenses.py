import pytest
import torch

from icml25.autoadvexbench import (
    TrainConfig,
    build_defense,
    digits_split,
    evaluate,
    load_defense,
    pgd,
    save_defense,
    train_defense,
)
from icml25.autoadvexbench.attacks import attack_loss
from icml25.autoadvexbench.defenses import random_resize_pad


@pytest.fixture(scope="module")
def data():
    return digits_split(seed=0, n_test=100)


@pytest.fixture(scope="module")
def quantised(data):
    x_train, y_train, _, _ = data
    return train_defense("quantised", x_train, y_train, TrainConfig(epochs=3), seed=0)


def test_digits_are_in_the_unit_box_and_split_by_seed(data):
    x_train, y_train, x, y = data
    assert x.shape == (100, 1, 8, 8) and x_train.shape == (1697, 1, 8, 8)
    assert 0 <= float(x.min()) and float(x.max()) <= 1
    assert torch.equal(digits_split(seed=0, n_test=100)[2], x)
    assert not torch.equal(digits_split(seed=1, n_test=100)[2], x)
    with pytest.raises(ValueError, match="n_test"):
        digits_split(seed=0, n_test=0)


def test_quantisation_masks_the_gradient_and_bpda_restores_it(quantised, data):
    _, _, x, y = data
    x = x[:20].clone().requires_grad_(True)
    loss = torch.nn.functional.cross_entropy(quantised(x), y[:20])
    assert torch.autograd.grad(loss, x)[0].abs().sum() == 0  # round() has zero gradient
    loss = attack_loss(quantised, x, y[:20], bpda=True, eot=1, detector_weight=0.0)
    assert torch.autograd.grad(loss, x)[0].abs().sum() > 0


def test_bpda_breaks_quantisation_where_plain_pgd_cannot_move(quantised, data):
    _, _, x, y = data
    plain = evaluate(quantised, x, y, pgd(quantised, x, y, 0.2, steps=20), 0.2)
    bpda = evaluate(quantised, x, y, pgd(quantised, x, y, 0.2, steps=20, bpda=True), 0.2)
    assert bpda.robust_accuracy < plain.robust_accuracy


def test_pgd_stays_in_the_budget_and_the_box(quantised, data):
    _, _, x, y = data
    adv = pgd(quantised, x, y, 0.1, steps=5, bpda=True, seed=3)
    assert float((adv - x).abs().max()) <= 0.1 + 1e-6
    assert 0 <= float(adv.min()) and float(adv.max()) <= 1
    assert torch.equal(adv, pgd(quantised, x, y, 0.1, steps=5, bpda=True, seed=3))


def test_random_defence_redraws_and_reseeds():
    defense = build_defense({"kind": "random_noise", "sigma": 0.5}, seed=0).eval()
    x = torch.rand(4, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    defense.reseed(5)
    a, b = defense.preprocess(x), defense.preprocess(x)
    defense.reseed(5)
    assert torch.equal(defense.preprocess(x), a) and not torch.equal(a, b)


def test_random_resize_keeps_the_image_when_there_is_no_room():
    x = torch.rand(3, 1, 8, 8, generator=torch.Generator().manual_seed(0))
    out = random_resize_pad(x, 8, torch.Generator().manual_seed(0))
    torch.testing.assert_close(out, x)
    big = random_resize_pad(x, 12, torch.Generator().manual_seed(0))
    assert big.shape == (3, 1, 12, 12)
    torch.testing.assert_close(big.sum((1, 2, 3)) > 0, torch.ones(3, dtype=torch.bool))


def test_detector_rejects_about_the_declared_share_of_clean_digits(data):
    x_train, y_train, _, _ = data
    defense = train_defense("detector", x_train, y_train, TrainConfig(epochs=1), seed=0)
    assert abs(float(defense.reject(x_train).float().mean()) - 0.05) < 0.01
    assert (defense.predict(x_train[:50]) >= -1).all()


def test_save_and_load_give_the_same_predictions(quantised, data, tmp_path):
    _, _, x, _ = data
    save_defense(quantised, tmp_path)
    assert torch.equal(load_defense(tmp_path).predict(x), quantised.predict(x))


def test_bad_input_names_the_argument():
    with pytest.raises(ValueError, match="kind"):
        build_defense({"kind": "magic"})
    defense = build_defense({"kind": "undefended"})
    with pytest.raises(ValueError, match="shape"):
        defense(torch.zeros(2, 8, 8))
    with pytest.raises(ValueError, match="eps"):
        pgd(defense, torch.zeros(2, 1, 8, 8), torch.zeros(2, dtype=torch.long), 0.0)
    with pytest.raises(ValueError, match="epochs"):
        TrainConfig(epochs=0)
