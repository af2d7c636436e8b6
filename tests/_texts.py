"""Replies the detector tables share: one refusal, and one refusal restated four ways."""

from __future__ import annotations

REFUSAL = "I'm sorry, but travel insurance cannot be refunded once purchased. Is there anything else I can help with?"
# One refusal restated: each declines and names the same things (insurance, reservation), in other words,
# too reworded for a text loop.
RESTATED = [
    "I understand your concern, but travel insurance cannot be added to an existing reservation after booking.",
    "Unfortunately, I am unable to add travel insurance to your existing reservation due to policy restrictions.",
    "I understand the importance of insurance for your trip. However, I am unable to add insurance to your "
    "existing reservation.",
    "I understand your frustration, but due to the policies in place travel insurance is not allowed on your "
    "reservation once it is booked.",
]
