"""To log a thing is to record it, to register it (issue 13, round 12).

The dictionaries give "record" and "register" as synonyms of the verb "log" (and a log is a record). Slack's calls_add
"Registers a new Call" made in another app: a request to record or log such a call shares no word with it but "call",
and found Twilio's outgoing call first. Slack's, Twilio's and Kubernetes' own names, summaries and paths below.
"""

from __future__ import annotations

from codemode_kernel.discovery.lexicon import expand
from codemode_kernel.discovery.search import SearchDocument, SearchIndex
from codemode_kernel.discovery.text import stem, stems


def _doc(key: str, verb: str, path: str, summary: str) -> SearchDocument:
    connector, _sep, name = key.partition(".")
    return SearchDocument(key=key, connector=connector, name=name, summary=summary, http_method=verb, http_path=path)


DOCS = [
    _doc("slack.calls_add", "POST", "/calls.add", "Registers a new Call."),
    _doc("slack.calls_info", "GET", "/calls.info", "Returns information about a Call."),
    _doc("slack.calls_end", "POST", "/calls.end", "Ends a Call."),
    _doc("slack.calls_participants_add", "POST", "/calls.participants.add",
         "Registers new participants added to a Call."),
    _doc("slack.chat_postMessage", "POST", "/chat.postMessage", "Sends a message to a channel."),
    _doc("twilio.CreateCall", "POST", "/2010-04-01/Accounts/{AccountSid}/Calls.json",
         "Create a new outgoing call to phones, SIP-enabled endpoints or Twilio Client connections"),
    _doc("twilio.ListCall", "GET", "/2010-04-01/Accounts/{AccountSid}/Calls.json",
         "Retrieves a collection of calls made to and from your account"),
    _doc("kubernetes.readCoreV1NamespacedPodLog", "GET", "/api/v1/namespaces/{namespace}/pods/{name}/log",
         "read log of the specified Pod"),
]


def test_log_brings_record_and_register() -> None:
    """'log', 'record' and 'register' stand for one another, below the request's own word."""
    terms = {term: weight for term, weight, _source in expand(stems("log"))}
    assert terms[stem("log")] == 1.0
    assert 0 < terms[stem("register")] < 1 and 0 < terms[stem("record")] < 1


def test_recording_a_call_held_elsewhere_is_registering_it() -> None:
    """'record a call that happened elsewhere' asks for Slack's calls_add (it registers one) before a new outgoing
    call; without the relatives, Twilio's CreateCall ranked above it."""
    ranked = [key for key, _score in SearchIndex(DOCS).rank("record a call that happened elsewhere", limit=10)[0]]
    assert ranked.index("slack.calls_add") < ranked.index("twilio.CreateCall")
