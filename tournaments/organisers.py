"""Who organises tournaments, and how an account becomes an organiser from the site alone.

Organisers are staff and the members of the Organisers group. An account asks from
/tournaments/ (a short reason); staff answer on /tournaments/organisers/ (grant: the account
joins the group; refuse, with a word of why). Site operators can also do it in the admin (the
group, or the Staff box) or make a staff account with `manage.py createsuperuser`."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import Group
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from tournaments.models import ORGANISERS_GROUP, OrganiserRequest, Tournament

NOT_AN_ORGANISER = ("Only organisers create tournaments. Ask to organise on the Tournaments "
                    "page (/tournaments/): staff answer there, and you can then make one.")


def can_organise(user: Any) -> bool:
    """Staff, or a member of the Organisers group (an active account either way)."""
    if not (getattr(user, "is_authenticated", False) and user.is_active):
        return False
    return bool(user.is_staff or user.groups.filter(name=ORGANISERS_GROUP).exists())


def can_cancel(user: Any, tournament: Tournament) -> bool:
    """Staff, or the organiser who made the tournament."""
    return can_organise(user) and (user.is_staff or tournament.created_by_id == user.pk)


def organiser_required(user: Any) -> None:
    if not can_organise(user):
        raise PermissionDenied(NOT_AN_ORGANISER)


def cancel_allowed(user: Any, tournament: Tournament) -> None:
    if not can_organise(user):
        raise PermissionDenied(NOT_AN_ORGANISER)
    if not can_cancel(user, tournament):
        raise PermissionDenied("Only the organiser who made this tournament, or staff, may "
                               "cancel it.")


def latest_request(user: Any) -> OrganiserRequest | None:
    if not getattr(user, "is_authenticated", False):
        return None
    return OrganiserRequest.objects.filter(user=user).order_by("-created", "-id").first()


def request_make(*, user: Any, reason: str) -> OrganiserRequest:
    """The account's request; a ValidationError in words when it is an organiser already,
    has one waiting, or gives no reason."""
    reason = " ".join(reason.split())
    if can_organise(user):
        raise ValidationError("You are an organiser already: make a tournament.")
    if not reason:
        raise ValidationError("Say in a few words what you would like to organise.")
    if len(reason) > 500:
        raise ValidationError("At most 500 characters, please.")
    try:
        with transaction.atomic():
            return OrganiserRequest.objects.create(user=user, reason=reason)
    except IntegrityError:
        raise ValidationError("Your request is waiting for staff already.") from None


def requests_pending() -> list[OrganiserRequest]:
    return list(OrganiserRequest.objects.filter(status=OrganiserRequest.Status.PENDING)
                .select_related("user").order_by("created", "id"))


def request_decide(*, request_id: int, staff: Any, grant: bool, answer: str = "") -> \
        OrganiserRequest:
    """Staff grant (the account joins the Organisers group) or refuse a waiting request."""
    if not (getattr(staff, "is_authenticated", False) and staff.is_active and staff.is_staff):
        raise PermissionDenied("Only staff answer requests to organise.")
    with transaction.atomic():
        found = OrganiserRequest.objects.select_for_update().filter(pk=request_id).first()
        if found is None:
            raise ValidationError("No such request.")
        if found.status != OrganiserRequest.Status.PENDING:
            raise ValidationError(f"This request was {found.status} already.")
        found.status = (OrganiserRequest.Status.GRANTED if grant
                        else OrganiserRequest.Status.REFUSED)
        found.decided, found.decided_by, found.answer = timezone.now(), staff, answer[:300]
        found.save(update_fields=["status", "decided", "decided_by", "answer"])
        if grant:
            group, _ = Group.objects.get_or_create(name=ORGANISERS_GROUP)
            found.user.groups.add(group)
    return found
