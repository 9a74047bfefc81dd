"""Tournaments: drawing up round robins (``schedule``), creating and cancelling them in the
store (``service``) and the work of playing and recording scheduled matches (``play``)."""

from .play import MatchSpec, claim_matches, play_and_record
from .schedule import MatchPlan, balanced_groups, derive_seed, new_deal_key, round_robin
from .service import cancel_tournament, create_tournament, pending_match_ids, same_deals

__all__ = [
    "MatchPlan",
    "MatchSpec",
    "balanced_groups",
    "cancel_tournament",
    "claim_matches",
    "create_tournament",
    "derive_seed",
    "new_deal_key",
    "pending_match_ids",
    "play_and_record",
    "round_robin",
    "same_deals",
]
