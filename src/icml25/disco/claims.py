"""The claims and checks of disco, declared before any run.

The protocol is in ``icml25.lab.reproduction``. The issue's claim (c), our AUCs within 0.02 of
the paper's table, is not declared here: the paper's table could not be read with the tools
of this project (only its abstract and introduction were reachable), so there is no number
to compare with, and none is invented. The paper's README says so.
"""

from icml25.lab.claims import CHECK, Claim

CLAIMS = (
    Claim(
        "a",
        "DIS-CO separates films released before the models' cut-off (suspect, before "
        "2023-09-01) from films released after it (clean) for the strongest model of the "
        "release, GPT-4o (gpt-4o-2024-08-06): ROC AUC of the per-film fraction of frames whose "
        "image answer names the film, suspect against clean over the 100 films; the smaller of "
        "the AUCs on main and on neutral frames.",
        "a_gpt4o_image_auc_min_frame_type",
        ">=",
        0.9,
        paper_value="DIS-CO detects suspect films, best with GPT-4o",
        source="Abstract; Sec. 5 (table not read)",
    ),
    Claim(
        "b",
        "The image adds to what a caption of the frame gives away: image AUC minus caption-only "
        "AUC (the same model asked to name the film from the frame's caption alone), smallest "
        "over the four models and the two frame types; the claim is that it is positive.",
        "b_min_image_minus_caption_auc",
        ">",
        0.0,
        paper_value="captions alone detect less well than frames",
        source="Sec. 5 (table not read)",
    ),
    Claim(
        "floor_le_image",
        "The floor variant (frames whose caption answer already names the film are not "
        "counted) can only lower a film's score: largest per-film floor score minus image "
        "score over every model, frame type and film. Holds by construction.",
        "check_max_floor_minus_image",
        "<=",
        0.0,
        kind=CHECK,
    ),
)
