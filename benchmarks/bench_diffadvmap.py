"""diffadvmap: DiffAdvMAP against the official ``A_DDIMSampler`` (Powerful-zhengzhao/DiffAdvMAP,
``guided_diffusion/ddim.py``) on the same trained denoiser, classifier, digits and noise; and
the attack's cost against PGD-Linf.

1. official (needs ``--official-src``, a checkout of the repository, and ``--official-python``,
   a Python with its dependencies: kornia, ftfy, pyyaml, tqdm, scipy, scikit-learn): the
   reproduction's default DDPM (the shared cached U-Net, T = 100) and SmallCNN, and the first
   ``n`` test digits the CNN classifies correctly. Ours: ``attack(t_star=20, lr=0.01, c_adv=1,
   c_rec=1, kappa=-5, xt_reg=0.01, radius=0.5)``, one image at a time, seed ``1000 s + i``. The
   official: its ``A_DDIMSampler.p_sample_loop`` in "perturbation_attack" mode, built from its
   ``configs/imagenet_perturb.yaml`` with our schedule's betas (100 steps, all kept), 100 DDIM
   steps, ``const = kappa``, the same lr (its smart decay), recon and x_t weights, dataset name
   "digits" (its clip radius 0.5), ``t_star = 21`` (its noise level ``steps[-21] = 20``), the
   global torch seed set to the same ``1000 s + i`` (so the first noise is ours). Its code
   normalises images with ImageNet's mean and std before the classifier and needs a 3-channel
   input, so its classifier is the SmallCNN behind a layer that undoes that normalisation of
   channel 0; ours gets the SmallCNN itself (the same function of the image). The official
   code runs in a subprocess under ``--official-python`` (this file with ``--anchor-child``);
   its ``torchvision`` imports (used only by its style and CLIP paths) are stood in for by empty
   modules because PyPI's torchvision 0.28.0 wheel does not load beside the CPU torch 2.13
   build, and the two ``torch.cuda`` memory-statistics calls its ``p_sample`` makes for logging
   are replaced by no-ops (they fail without CUDA). Its files are never copied here. The two
   do not take the same number of optimised steps (ours also optimises at t = 0: 21 steps from
   t* = 20, the official 20), so the table counts each side's steps (its calls of
   ``torch.autograd.grad``, one per step) and gives the time per optimised step beside the time
   per image.
2. cost (``--cost``): attack time per image against PGD-Linf (20 steps) on untrained networks
   of several sizes, and the peak memory of each in a fresh process.

One thread; time ratios under load are indicative.

    python benchmarks/bench_diffadvmap.py --official-src <checkout> --official-python <python>
    python benchmarks/bench_diffadvmap.py --cost
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
import types
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).parent))
from harness import measure, table  # noqa: E402

from icml25.common.diffusion import NoiseSchedule, UNet, cached_ddpm  # noqa: E402
from icml25.diffadvmap import (  # noqa: E402
    SmallCNN,
    attack,
    digits,
    margin,
    pgd_linf,
    train_classifier,
)

SIZES = [  # (channels, side, batch, t_star, unet width)
    (1, 8, 1, 20, 16),
    (1, 8, 64, 20, 16),
    (1, 8, 64, 40, 16),
    (3, 32, 16, 20, 32),
]


def _call(size: int, method: str):
    """The attack ``method`` ("pgd" or "diffadvmap") on the inputs of ``SIZES[size]``."""
    c, side, batch, t_star, width = SIZES[size]
    gen = torch.Generator().manual_seed(0)
    x = torch.rand((batch, c, side, side), generator=gen) * 2 - 1
    y = torch.randint(10, (batch,), generator=gen)
    model = SmallCNN(c, 10, 16, seed=0).eval().requires_grad_(False)
    if method == "pgd":
        return lambda: pgd_linf(model, x, y, epsilon=0.3, steps=20)
    unet = UNet(c, width, seed=0).eval().requires_grad_(False)
    schedule = NoiseSchedule(100)
    return lambda: attack(model, unet, x, y, t_star=t_star, schedule=schedule, kappa=-5.0)


T_STAR, LR, KAPPA, XT_REG, RADIUS = 20, 0.01, -5.0, 0.01, 0.5  # c_adv = c_rec = 1
IMAGENET = ((0.485, 0.456, 0.406), (0.229, 0.224, 0.225))  # the official get_entries' mean, std


class Channel0(torch.nn.Module):
    """Undo the official code's ImageNet normalisation of channel 0 and classify that channel
    with a 1-channel classifier: (B, 3, H, W) -> (B, K)."""

    def __init__(self, classifier: torch.nn.Module):
        super().__init__()
        self.classifier = classifier

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        image01 = x[:, :1] * IMAGENET[1][0] + IMAGENET[0][0]  # (B, 1, H, W) in [0, 1]
        return self.classifier(2 * image01 - 1)


def prepare(n: int) -> dict:
    """The reproduction's default DDPM and SmallCNN, and ``n`` correctly classified test digits."""
    from icml25.diffadvmap.reproduce import Config  # noqa: PLC0415  (not in the official Python)

    c = Config()
    x_train, y_train, x_test, y_test = digits(c.data_seed)
    ddpm = cached_ddpm(
        x_train.numpy(), T=c.ddpm_T, width=c.ddpm_width, steps=c.ddpm_steps, seed=c.data_seed
    )
    cnn = SmallCNN(1, 10, c.cnn_width, seed=c.data_seed)
    cnn = train_classifier(cnn, x_train, y_train, epochs=c.cnn_epochs, seed=c.data_seed).eval()
    with torch.no_grad():
        ok = cnn(x_test).argmax(1) == y_test
    return {
        "unet": ddpm.model.state_dict(),
        "width": c.ddpm_width,
        "betas": ddpm.schedule.betas,
        "cnn": cnn.state_dict(),
        "cnn_width": c.cnn_width,
        "x": x_test[ok][:n],
        "y": y_test[ok][:n],
    }


def networks(inputs: dict):
    """(UNet, SmallCNN, NoiseSchedule) of ``prepare``'s state dicts, frozen."""
    unet = UNet(1, inputs["width"], seed=0)
    unet.load_state_dict(inputs["unet"])
    cnn = SmallCNN(1, 10, inputs["cnn_width"], seed=0)
    cnn.load_state_dict(inputs["cnn"])
    schedule = NoiseSchedule(len(inputs["betas"]))
    assert torch.allclose(schedule.betas, inputs["betas"])
    return unet.eval().requires_grad_(False), cnn.eval().requires_grad_(False), schedule


class GradCalls:
    """Counts the calls of ``torch.autograd.grad`` while active: one per optimised step (one
    gradient step on ``x_t``) of either attack, which both take their gradient through it."""

    def __enter__(self):
        self.count, self._grad = 0, torch.autograd.grad

        def counted(*args, **kwargs):
            self.count += 1
            return self._grad(*args, **kwargs)

        torch.autograd.grad = counted
        return self

    def __exit__(self, *exc):
        torch.autograd.grad = self._grad


def ours_one(unet, cnn, schedule, x, y, seed: int) -> torch.Tensor:
    return attack(
        cnn,
        unet,
        x,
        y,
        t_star=T_STAR,
        lr=LR,
        kappa=KAPPA,
        xt_reg=XT_REG,
        radius=RADIUS,
        schedule=schedule,
        seed=seed,
    )


def official_choices(unet, cnn, schedule, x, y, seed: int) -> torch.Tensor:
    """Diagnostic, not a method: our loop (same loss, step size, clipping, noise) with the two
    choices in which the official sampler differs from ``attack``: the DDIM update uses the
    network's eps with the clipped ``x0_hat`` (ours re-derives eps from the clipped ``x0_hat``),
    and the loop stops at timestep 0 (ours also optimises at t = 0 and steps to the data).
    Images (1, C, H, W) -> (1, C, H, W)."""
    noise = torch.randn(x.shape, generator=torch.Generator().manual_seed(seed))
    x_t = schedule.abar(T_STAR) ** 0.5 * x + (1 - schedule.abar(T_STAR)) ** 0.5 * noise
    for t in range(T_STAR, 0, -1):
        origin = x_t.detach()
        step = LR * (schedule.abar(t) / schedule.abar(0)) ** 0.5
        tt = torch.full((len(x),), t)
        x_var = origin.clone().requires_grad_(True)
        with torch.enable_grad():
            x0_hat = schedule.predict_x0(x_var, t, unet(x_var, tt)).clamp(-1, 1)
            loss = (KAPPA - margin(cnn(x0_hat), y)) ** 2 + (x - x0_hat).pow(2).sum()
            loss = (loss + XT_REG * (x_var - origin).pow(2).sum()).sum()
            grad = torch.nan_to_num(torch.autograd.grad(loss, x_var)[0])
        x_t = torch.clamp(origin - step * grad, origin - RADIUS, origin + RADIUS)
        with torch.no_grad():
            eps = unet(x_t, tt)
            x0_hat = schedule.predict_x0(x_t, t, eps).clamp(-1, 1)
            ab_s = schedule.abar(t - 1)
            x_t = ab_s**0.5 * x0_hat + (1 - ab_s) ** 0.5 * eps
    return x_t.clamp(-1, 1)


def anchor_child(src: str, folder: str, seed: int) -> None:
    """Run in the official Python: its sampler on each image of ``folder/inputs.pt``."""
    for name in (
        "torchvision",
        "torchvision.transforms",
        "torchvision.models",
        "torchvision.utils",
    ):
        module = types.ModuleType(name)  # unused by the perturbation attack (see the docstring)
        module.__path__ = []
        module.__getattr__ = lambda _name: _Unused()
        sys.modules[name] = module
        parent, _, child = name.rpartition(".")
        if parent:
            setattr(sys.modules[parent], child, module)
    # its p_sample logs CUDA peak memory ("Exp B"); on a CPU-only torch those two calls fail
    torch.cuda.reset_peak_memory_stats = lambda *args, **kwargs: None
    torch.cuda.max_memory_allocated = lambda *args, **kwargs: 0
    sys.path.insert(0, src)
    os.chdir(src)  # its config loader resolves paths from the working directory
    from guided_diffusion import gaussian_diffusion as gd  # noqa: PLC0415
    from guided_diffusion.ddim import A_DDIMSampler  # noqa: PLC0415
    from utils.config import Config as OfficialConfig  # noqa: PLC0415

    inputs = torch.load(Path(folder, "inputs.pt"), weights_only=True)
    unet, cnn, _ = networks(inputs)
    conf = OfficialConfig(
        default_config_file=str(Path(src, "configs", "imagenet_perturb.yaml")), use_argparse=False
    )
    conf.update(
        {
            "dataset_name": "digits",
            "ddim": {"schedule_params": {"num_inference_steps": 100, "ddpm_num_steps": 100}},
            "optimize_xt": {"lr_xt": LR, "coef_xt_reg": XT_REG},
            "coef_recon_reg": 1.0,
            "coef_adv_reg": 1.0,
        }
    )
    betas = inputs["betas"].numpy()
    sampler = A_DDIMSampler(
        use_timesteps=range(len(betas)),
        conf=conf,
        betas=betas,
        model_mean_type=gd.ModelMeanType.EPSILON,
        model_var_type=gd.ModelVarType.LEARNED_RANGE,
        loss_type=gd.LossType.MSE,
    )

    class Eps(torch.nn.Module):  # the official sampler reads eps from the first C channels
        def forward(self, x, t, **_):
            eps = unet(x, t)
            return torch.cat([eps, torch.zeros_like(eps)], 1)

    model_fn, target = Eps(), Channel0(cnn)
    out, seconds, steps = [], [], []
    for i in range(len(inputs["x"])):
        x, y = inputs["x"][i : i + 1], inputs["y"][i : i + 1]
        torch.manual_seed(1000 * seed + i)  # the official code draws its noise globally
        with GradCalls() as grads:
            begin = time.perf_counter()
            sample = sampler.p_sample_loop(
                model_fn,
                shape=tuple(x.shape),
                adaptive_const=-KAPPA,
                target_model=target,
                target_label=y,
                t_star=T_STAR + 1,
                model_kwargs={"gt": x, "gt_keep_mask": torch.zeros_like(x)},
                conf=conf,
                device=torch.device("cpu"),
                progress=False,
            )["sample"]
            seconds.append(time.perf_counter() - begin)
        steps.append(grads.count)
        out.append(sample.detach())
    torch.save(
        {"adv": torch.cat(out), "seconds": torch.tensor(seconds), "steps": torch.tensor(steps)},
        Path(folder, "out.pt"),
    )


class _Unused:
    def __getattr__(self, name):
        return self

    def __call__(self, *args, **kwargs):
        return self


def official_rows(src: str, python: str, n: int, seeds: int):
    torch.set_num_threads(1)
    inputs = prepare(n)
    unet, cnn, schedule = networks(inputs)
    x, y = inputs["x"], inputs["y"]
    adv = {"ours": [], "official": [], "diagnostic": []}
    seconds = {"ours": [], "official": [], "ours batched": []}
    steps = {"ours": [], "official": [], "ours batched": []}  # optimised steps of each call
    env = {**os.environ, "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    env["PYTHONPATH"] = str(Path(__file__).parents[1] / "src")
    with tempfile.TemporaryDirectory(prefix="diffadvmap-bench-") as folder:
        torch.save(inputs, Path(folder, "inputs.pt"))
        for s in range(seeds):  # alternate ours and the official run, seed by seed
            row = []
            for i in range(len(x)):
                with GradCalls() as grads:
                    begin = time.perf_counter()
                    row.append(
                        ours_one(unet, cnn, schedule, x[i : i + 1], y[i : i + 1], 1000 * s + i)
                    )
                    seconds["ours"].append(time.perf_counter() - begin)
                steps["ours"].append(grads.count)
            adv["ours"].append(torch.cat(row))
            adv["diagnostic"].append(
                torch.cat(
                    [
                        official_choices(
                            unet, cnn, schedule, x[i : i + 1], y[i : i + 1], 1000 * s + i
                        )
                        for i in range(len(x))
                    ]
                )
            )
            cmd = [python, __file__, "--anchor-child", src, folder, str(s)]
            run = subprocess.run(cmd, env=env, capture_output=True, text=True)
            if run.returncode:
                raise SystemExit(f"the official run failed:\n{run.stderr[-4000:]}")
            out = torch.load(Path(folder, "out.pt"), weights_only=True)
            adv["official"].append(out["adv"])
            seconds["official"] += out["seconds"].tolist()
            steps["official"] += out["steps"].tolist()
            with GradCalls() as grads:
                begin = time.perf_counter()
                ours_one(unet, cnn, schedule, x, y, 1000 * s)  # the whole batch at once
                seconds["ours batched"].append((time.perf_counter() - begin) / len(x))
            steps["ours batched"].append(grads.count)
    with torch.no_grad():
        stats = {}
        for k, runs in adv.items():
            if k == "diagnostic":
                continue
            success = [float((cnn(a).argmax(1) != y).float().mean()) for a in runs]
            dist = [float((a - x).flatten(1).norm(dim=1).mean()) for a in runs]
            stats[k] = (success, dist)
        gap = max(
            float((a - b).abs().max()) for a, b in zip(adv["ours"], adv["official"], strict=True)
        )
        mean_gap = float(
            np.mean(
                [(a - b).abs().mean() for a, b in zip(adv["ours"], adv["official"], strict=True)]
            )
        )
        same = float(
            np.mean(
                [
                    (cnn(a).argmax(1) == cnn(b).argmax(1)).float().mean()
                    for a, b in zip(adv["ours"], adv["official"], strict=True)
                ]
            )
        )
    for k, counts in steps.items():  # every image takes the same number of steps
        assert len(set(counts)) == 1, (k, counts)
    n_steps = {k: counts[0] for k, counts in steps.items()}
    t_ours, t_off = min(seconds["ours"]), min(seconds["official"])
    t_batched = min(seconds["ours batched"])
    per_step = {
        "ours": t_ours / n_steps["ours"],
        "official": t_off / n_steps["official"],
        "ours batched": t_batched / n_steps["ours batched"],
    }
    (s_o, d_o), (s_f, d_f) = stats["ours"], stats["official"]
    rows = [
        [
            f"success rate, {len(x)} digits x {seeds} seeds, one image at a time",
            1e3 * t_ours,
            1e3 * t_off,
            t_off / t_ours,
            n_steps["ours"],
            n_steps["official"],
            1e3 * per_step["ours"],
            1e3 * per_step["official"],
            per_step["official"] / per_step["ours"],
            f"{np.mean(s_o):.3f} ({min(s_o):.3f}-{max(s_o):.3f})",
            f"{np.mean(s_f):.3f} ({min(s_f):.3f}-{max(s_f):.3f})",
            f"{np.mean(s_o) - np.mean(s_f):+.3f}",
        ],
        [
            "mean L2 distance to the clean digit",
            *[""] * 8,
            f"{np.mean(d_o):.3f} ({min(d_o):.3f}-{max(d_o):.3f})",
            f"{np.mean(d_f):.3f} ({min(d_f):.3f}-{max(d_f):.3f})",
            float(np.mean(d_o) / np.mean(d_f)),
        ],
        [
            f"ours batched ({len(x)} images at once), per image",
            1e3 * t_batched,
            1e3 * t_off,
            t_off / t_batched,
            n_steps["ours batched"],
            n_steps["official"],
            1e3 * per_step["ours batched"],
            1e3 * per_step["official"],
            per_step["official"] / per_step["ours batched"],
            "",
            "",
            "",
        ],
    ]
    diagnostic = max(
        float((a - b).abs().max()) for a, b in zip(adv["diagnostic"], adv["official"], strict=True)
    )
    facts = (
        f"per-pixel |ours - official|: mean {mean_gap:.3g}, max {gap:.3g} (pixels in [-1, 1]); "
        f"the CNN gives both the same label on {same:.3f} of the images; our loop with the "
        f"official's two differing choices (official_choices) against the official: max "
        f"{diagnostic:.3g}"
    )
    return rows, facts


OFFICIAL_HEADER = [
    "setting",
    "ours ms/img",
    "official ms/img",
    "time ratio (official / ours)",
    "ours steps",
    "official steps",
    "ours ms/step/img",
    "official ms/step/img",
    "per-step time ratio (official / ours)",
    "ours (seed range)",
    "official (seed range)",
    "ours - official or ours / official",
]


def _status_kb(field: str) -> int:
    """A memory field of /proc/self/status, in kB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise RuntimeError(f"{field} not in /proc/self/status")


def _peak_mb(size: int, method: str) -> float:
    """Rise of the peak resident memory over one call, measured in a fresh process."""
    args = [sys.executable, __file__, "--peak", str(size), method]
    return float(subprocess.run(args, capture_output=True, text=True, check=True).stdout)


def cost_rows() -> None:
    torch.set_num_threads(1)
    rows = []
    for i, (c, side, batch, t_star, _) in enumerate(SIZES):
        t_pgd, _, _ = measure(_call(i, "pgd"), repeat=3)
        t_dam, _, out = measure(_call(i, "diffadvmap"), repeat=1)
        m_pgd, m_dam = _peak_mb(i, "pgd"), _peak_mb(i, "diffadvmap")
        assert out.shape == (batch, c, side, side)
        rows.append(
            [
                f"{c}x{side}x{side}",
                batch,
                t_star,
                1e3 * t_pgd / batch,
                1e3 * t_dam / batch,
                t_dam / t_pgd,
                m_pgd,
                m_dam,
                torch.get_num_threads(),
            ]
        )
    header = [
        "image",
        "batch",
        "t*",
        "PGD-20 ms/img",
        "DiffAdvMAP ms/img",
        "ratio",
        "PGD peak MB",
        "DiffAdvMAP peak MB",
        "threads",
    ]
    print(table(header, rows))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--official-src", help="a checkout of Powerful-zhengzhao/DiffAdvMAP")
    parser.add_argument("--official-python", help="a Python with the official code's packages")
    parser.add_argument("--n", type=int, default=12, help="digits attacked")
    parser.add_argument("--seeds", type=int, default=2)
    parser.add_argument("--cost", action="store_true", help="the PGD cost table")
    args = parser.parse_args()
    print(f"threads: 1, torch {torch.__version__}")
    if args.official_src and args.official_python:
        rows, facts = official_rows(args.official_src, args.official_python, args.n, args.seeds)
        print(table(OFFICIAL_HEADER, rows))
        print(facts, flush=True)
    else:
        print(
            "official rows skipped: fetch github:Powerful-zhengzhao/DiffAdvMAP, make a Python "
            "with kornia, ftfy, pyyaml, tqdm, scipy and scikit-learn beside torch, and pass "
            "--official-src <checkout> --official-python <python>"
        )
    if args.cost:
        cost_rows()


if __name__ == "__main__":
    if sys.argv[1:2] == ["--anchor-child"]:
        torch.set_num_threads(1)
        anchor_child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
    elif sys.argv[1:2] == ["--peak"]:
        torch.set_num_threads(1)
        fn = _call(int(sys.argv[2]), sys.argv[3])
        Path("/proc/self/clear_refs").write_text("5")  # Linux: reset the peak (VmHWM) to now
        before = _status_kb("VmRSS")
        fn()
        print((_status_kb("VmHWM") - before) / 1024)
    else:
        main()
