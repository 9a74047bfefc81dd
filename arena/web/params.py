"""Typed parameters shared by the pages and the JSON API: ids within the store's range, and
the bounded pages of long listings.

An id is a signed 64-bit integer in the store: anything else (``abc``, ``-1``, ``2**64``) names
nothing, so it is answered 404 like any other id that is not there (see ``app.create_app``),
never handed to the database to overflow there."""

from __future__ import annotations

from typing import Annotated

from fastapi import Path, Query

MAX_ID = 2**63 - 1
MAX_PAGE = 200  # rows of one page of a listing

MatchId = Annotated[int, Path(ge=1, le=MAX_ID, description="a match's id")]
TournamentId = Annotated[int, Path(ge=1, le=MAX_ID, description="a tournament's id")]
Limit = Annotated[int, Query(ge=1, le=MAX_PAGE, description=f"rows per page (at most {MAX_PAGE})")]
Before = Annotated[int | None, Query(ge=1, le=MAX_ID,
                                     description="the next page: rows older than this id (the last one shown)")]
PageNumber = Annotated[int, Query(ge=1, le=1_000_000, description="page number, from 1")]
Seat = Annotated[int, Query(ge=0, le=15, description="a seat of the match, from 0")]
