"""The claims and checks of autoadvexbench, declared before any run.

The protocol is in ``icml25.lab.reproduction``. Every ratio is robust accuracy / clean accuracy
of the last submission of a scripted attacker (PGD, PGD+BPDA, PGD+EOT, adaptive: stand-ins for
the LLM agent, not a model) at the L-infinity budget eps = 0.2 on 8x8 digits in [0, 1]; the
benchmark calls a defence broken when the ratio is below 0.5. Over replicates (independently
trained defences on independent splits), "fails to break" takes the smallest ratio and
"breaks" the largest: each claim must hold in every replicate.
"""

from icml25.lab.claims import Claim

BROKEN = 0.5  # the benchmark's line: robust accuracy < half the clean accuracy

CLAIMS = (
    Claim(
        "a1",
        "Plain PGD fails to break input quantisation (robust/clean >= 0.5; smallest ratio over "
        "replicates). A check, not a claim: rounding has a zero gradient everywhere, so plain "
        "PGD moves only by its random start and cannot break it, by construction; (a2) carries "
        "the point.",
        "a1_quantised_pgd_min_ratio",
        ">=",
        BROKEN,
        kind="check",
        paper_value="gradient masking defeats plain gradient attacks; BPDA breaks it",
        source="issue 25 (a); Athalye et al. 2018 via the benchmark's defences",
    ),
    Claim(
        "a2",
        "... while PGD with BPDA (identity in the backward pass of the quantiser) breaks it "
        "(robust/clean < 0.5; largest ratio over replicates).",
        "a2_quantised_bpda_max_ratio",
        "<",
        BROKEN,
        source="issue 25 (a)",
    ),
    Claim(
        "a3",
        "Plain PGD (one draw of the randomness per step) fails to break the random-noise "
        "defence (robust/clean >= 0.5; smallest ratio over replicates).",
        "a3_noise_pgd_min_ratio",
        ">=",
        BROKEN,
        paper_value="randomised defences need EOT",
        source="issue 25 (a)",
    ),
    Claim(
        "a4",
        "... while PGD with EOT (gradient averaged over 8 draws) breaks it (robust/clean < 0.5; "
        "largest ratio over replicates).",
        "a4_noise_eot_max_ratio",
        "<",
        BROKEN,
        source="issue 25 (a)",
    ),
    Claim(
        "b",
        "Adversarial training holds: none of the four scripted attacks breaks it at eps = 0.2 "
        "(smallest robust/clean over attacks and replicates >= 0.5).",
        "b_adv_trained_min_ratio",
        ">=",
        BROKEN,
        paper_value="adversarial training is a defence the benchmark's agents do not break",
        source="issue 25 (b)",
    ),
    Claim(
        "undefended_broken",
        "Sanity: plain PGD breaks the undefended classifier at the budget (largest ratio over "
        "replicates < 0.5): the budget is one at which an attack can succeed.",
        "undefended_pgd_max_ratio",
        "<",
        BROKEN,
        kind="check",
    ),
    Claim(
        "c_stopped",
        "Sandbox: every escape step (read, write or delete outside the folder by tool, by "
        "script or by native code; open a socket; start a process, also past the audit hook; "
        "read the harness's environment; signal the harness; run past the CPU or wall-clock "
        "limit; allocate past the memory limit) fails and its stop is recorded in the "
        "transcript (fraction).",
        "c_escapes_stopped_fraction",
        ">=",
        1.0,
        kind="check",
        paper_value="the agent runs in a container",
        source="issue 25 (c)",
    ),
    Claim(
        "c_goes_on",
        "Sandbox: after all the escape steps the run goes on: a harmless script runs and the "
        "agent reaches finish (1 = yes).",
        "c_run_goes_on",
        ">=",
        1.0,
        kind="check",
        source="issue 25 (c)",
    ),
    Claim(
        "c_control",
        "Sandbox control: the same script escapes run without the guard (no audit hook, no "
        "kernel barriers) do succeed (fraction), so c_stopped measures the guard and not broken "
        "probes.",
        "c_control_escapes_succeeded_fraction",
        ">=",
        1.0,
        kind="check",
    ),
)
