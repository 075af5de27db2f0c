"""A call is not a phone (issue 13, round 12).

The lexicon's group of "call" once held "phone": a request that says "dial", "ring" or "call" brought the word
"phone" in, and Twilio's phone-number methods (IncomingPhoneNumbers: buy, list, release a number) share it with
their names, so "dial a number" found the purchase of a number before the call. A phone is the device and a phone
number its address (the lexicon's "phone number line"); the dictionaries' synonyms of the verb "call" are dial and
ring. Twilio's own names, summaries and paths below.
"""

from __future__ import annotations

from codemode_kernel.discovery.lexicon import expand
from codemode_kernel.discovery.search import SearchDocument, SearchIndex
from codemode_kernel.discovery.text import stem, stems

_BASE = "/2010-04-01/Accounts/{AccountSid}"


def _doc(name: str, verb: str, path: str, summary: str) -> SearchDocument:
    return SearchDocument(key=f"twilio.{name}", connector="twilio", name=name, summary=summary, http_method=verb,
                          http_path=_BASE + path)


TWILIO = [
    _doc("CreateCall", "POST", "/Calls.json",
         "Create a new outgoing call to phones, SIP-enabled endpoints or Twilio Client connections"),
    _doc("ListCall", "GET", "/Calls.json", "Retrieves a collection of calls made to and from your account"),
    _doc("CreateCallRecording", "POST", "/Calls/{CallSid}/Recordings.json", "Create a recording for the call"),
    _doc("CreateIncomingPhoneNumber", "POST", "/IncomingPhoneNumbers.json", "Purchase a phone-number for the account."),
    _doc("ListIncomingPhoneNumber", "GET", "/IncomingPhoneNumbers.json",
         "Retrieve a list of incoming-phone-numbers belonging to the account used to make the request"),
    _doc("ListAvailablePhoneNumberMobile", "GET", "/AvailablePhoneNumbers/{CountryCode}/Mobile.json",
         "GET /2010-04-01/Accounts/{AccountSid}/AvailablePhoneNumbers/{CountryCode}/Mobile.json"),
    _doc("CreateIncomingPhoneNumberMobile", "POST", "/IncomingPhoneNumbers/Mobile.json",
         "POST /2010-04-01/Accounts/{AccountSid}/IncomingPhoneNumbers/Mobile.json"),
    _doc("CreateMessage", "POST", "/Messages.json", "Send a message"),
    _doc("ListMessage", "GET", "/Messages.json",
         "Retrieve a list of Message resources associated with a Twilio Account"),
    _doc("ListQueue", "GET", "/Queues.json",
         "Retrieve a list of queues belonging to the account used to make the request"),
    _doc("CreateQueue", "POST", "/Queues.json", "Create a queue"),
    _doc("ListConference", "GET", "/Conferences.json",
         "Retrieve a list of conferences belonging to the account used to make the request"),
    _doc("ListRecording", "GET", "/Recordings.json",
         "Retrieve a list of recordings belonging to the account used to make the request"),
    _doc("CreateUsageTrigger", "POST", "/Usage/Triggers.json", "Create a new UsageTrigger"),
    _doc("FetchBalance", "GET", "/Balance.json", "Fetch the balance for an Account based on Account Sid."),
    _doc("ListKey", "GET", "/Keys.json", "GET /2010-04-01/Accounts/{AccountSid}/Keys.json"),
]


def test_calling_a_number_places_a_call_rather_than_buying_a_number() -> None:
    """'call a number': with 'phone' among the relatives of 'call', the purchase of a phone number ranked first."""
    assert SearchIndex(TWILIO).rank("call a number", limit=1)[0][0][0] == "twilio.CreateCall"


def test_dialing_a_number_ranks_the_call_above_the_numbers_we_own() -> None:
    """'dial a number' brought 'phone' and put the call below the purchase and the list of numbers; it is now second
    (the purchase still shares 'number' with the request and stays first)."""
    ranked = [key for key, _score in SearchIndex(TWILIO).rank("dial a number", limit=5)[0]]
    assert ranked.index("twilio.CreateCall") < ranked.index("twilio.ListIncomingPhoneNumber")


def test_a_call_word_does_not_bring_phone_but_a_phone_number_stays_a_line() -> None:
    """'ring' brings 'call' and not 'phone'; 'phone' still brings 'number' and 'line'."""
    ring = {term for term, _weight, _source in expand(stems("ring"))}
    assert stem("call") in ring and stem("phone") not in ring
    phone = {term for term, _weight, _source in expand(stems("phone"))}
    assert {stem("number"), stem("line")} <= phone
