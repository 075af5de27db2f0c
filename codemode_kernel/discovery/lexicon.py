"""The words people use for what API methods do, folded onto the words APIs use.

Plain data written for web and cloud APIs in general (not for one API, nor from the
benchmark's requests):

- ``RELATED``: groups of words that stand for one another in a request ("fetch" for "get",
  "remove" for "delete", "ticket" for "issue"). A query word brings the others of its
  groups in at a lower weight, so an exact word still ranks first.
- ``GLOSSARY``: the same for the resources APIs name ("firewall" for a network policy,
  "card reader" for a terminal reader); a compound is written with underscores
  (``network_policy``) and stands for the words the API splits it into.
- ``ALIASES``: abbreviations that mean words an API spells out ("PR" → "pull request",
  "DM" → "direct message", "k8s" → "kubernetes"), at full weight; ``PHRASES`` the same for
  phrases whose words mean something else together ("hang up", "logged in").

Verbs are grouped by the action (read one, list, create, change, delete, …); the ranker also
reads the action of a method from its HTTP method and path (:mod:`search`).
"""

from __future__ import annotations

from collections.abc import Collection, Mapping

from codemode_kernel.discovery.text import stem

# One group per line. A word may sit in several groups. Round 6 (issue 13) added dictionary synonyms
# for the dev set's classes of misses: overwrite (replace; dev MRR +0.002 against overwrite as an
# update), fix (update), latest/newest, restore/untrash, dialog/modal/popup, S/MIME certificates:
# dev top-1 19.8 -> 20.8 %, top-5 47.9 -> 51.0 %, tuning top-1 52.6 -> 53.2 %, top-5 75.3 %; held
# out top-5 63.8 -> 62.8 %. Tried and dropped as moving nothing: scrap (cancel), tape (record), blurb
# (description), roster (member), behalf (delegate), hold (queue), "bring back" (restore); and
# all/every/each/entire/whole as one group (dev top-5 -1.1 points, tuning -0.5).
# Round 10 (one bundle of the dictionaries' synonyms and everyday names, chat APIs first; gated by the validation set's
# aggregates): amend, correct, tweak (change); backlog, scrollback (history); emoticon, smiley (emoji); avatar,
# headshot (a profile photo); leave quit exit depart; kick eject expel oust remove; reply respond answer response;
# announce announcement broadcast publish post; icon logo avatar; permalink link url; unfurl preview; "user group" as
# Slack's one word "usergroup" (PHRASES). Tuning top-5 77.4 -> 77.9 %, paraphrase top-5 63.9 -> 65.1 % (top-1 54.7 %,
# MRR 0.640); validation MRR 0.381 -> 0.382, connector= given top-5 55.2 -> 57.3 % (top-1 / top-5 31.2 / 49.0 %
# unchanged); dev and held out unchanged (40.6 / 65.6 %, MRR 0.499; 45.7 / 64.9 %). Measured and not kept: "revise"
# (its stem meets Kubernetes' ControllerRevision), "bring" beside invite (it took "bring it back", a restore: dev top-5
# -1) and "bring back" as restore (the request splits the phrase).
# Round 12: "phone" left the group of "call" ("call dial ring voice"): a phone is the device and a phone number its
# address ("phone number line" below); the dictionaries' synonyms of the verb "call" are dial and ring. With it, a
# request's "call", "dial" or "ring" brought "phone" and found Twilio's IncomingPhoneNumbers (buy, list, release a
# number) before the call. Validation MRR 0.398 -> 0.399 (top-1 / top-5 32.3 / 51.0 % unchanged); tuning top-1 54.7 ->
# 55.3 %, MRR 0.640 -> 0.643 (top-5 78.4 %); held out top-1 45.7 -> 44.7 % (top-5 66.0 %); dev unchanged (41.7 /
# 65.6 %, MRR 0.513). Specs: tests/discovery/test_search_telephony.py.
# Then "log register record" (the dictionaries' synonyms of the verb "log"; a log is a record; Slack's calls_add
# "Registers a new Call" made elsewhere): validation top-5 51.0 -> 52.1 %, MRR 0.399 -> 0.401 (top-1 32.3 %); tuning,
# held out and dev unchanged (55.3 / 78.4 %, MRR 0.643; 44.7 / 66.0 %; 41.7 / 65.6 %, MRR 0.513). Measured and not
# kept: "call log" (validation top-5 52.1 %, MRR 0.400: the narrower of the two), "log record" (nothing moved).
# Specs: tests/discovery/test_search_log_verb.py.
RELATED = """
get fetch read retrieve show view see display inspect describe detail info information lookup obtain check look
list enumerate browse
create add new make post insert register generate open setup build start store
delete remove destroy drop erase purge discard wipe kill
update edit modify change patch set alter adjust replace configure rename reopen fix amend correct tweak
replace overwrite substitute
search find query lookup locate filter match look
star favorite favourite bookmark like
send deliver post dispatch mail email text notify message
cancel stop abort terminate halt end kill
start begin trigger launch run dispatch kick initiate execute
rerun retry restart rerequest
merge land combine integrate
close resolve finish complete done
download export save fetch
upload import attach share
invite add join
approve accept allow grant permit confirm
reject deny decline refuse dismiss
lock freeze block restrict prevent
unlock unfreeze unblock
archive hide shelve
mute silence snooze quiet
count total number how many tally
repository repo project codebase
organization org organisation company enterprise
issue ticket bug problem task
user person people member account developer someone somebody everybody collaborator teammate colleague
workflow pipeline ci build action job run task
secret password credential token key
message sms text mms email mail
email mail message inbox
channel room conversation chat
container pod
node machine server host vm instance cordon drain
deployment deploy app application rollout release
service endpoint expose
customer buyer shopper client payer consumer
subscription plan recurring tier membership billing
invoice bill receipt
refund reimburse return reversal money
payout withdrawal withdraw bank
coupon discount promotion promo voucher
dispute chargeback
price cost pricing amount fee
product item good catalog
payment charge pay purchase transaction checkout collect
balance funds money credit
label folder tag category
trash bin wastebasket garbage throw
attachment attached file document pdf upload
gist paste snippet
notification alert inbox notice
log output stdout console
secret config configuration setting settings
storage disk volume persistentvolume claim
permission access role grant rbac privilege binding
version release tag
webhook callback hook url notify
vacation away absence autoreply responder holiday
filter rule sort
delegate assistant proxy
reminder remind nudge tomorrow
presence online status availability
topic subject purpose
phone number line
call dial ring voice
recording audio recording
transcription transcript
usage spend spending consumption metering metered
trigger threshold alert
conference meeting bridge
participant attendee member
traffic visitor views clone
diff compare comparison
vulnerability alert security advisory dependabot
follow follower subscribe watch
limit quota remaining rate
history timeline changes events log backlog scrollback
commit change revision history
branch ref
review approve feedback
reviewer review
schedule cron periodic nightly daily later
scale replica replicas copies instances
namespace tenant
event warning
profile account identity
signature sendas
thread conversation
draft unsent
dialog modal form popup
smime certificate sign signing encrypt encryption
emoji reaction emoticon smiley
reaction emoji thumbs
pending waiting awaiting open outstanding
upcoming next future
latest newest recent current
restore recover undelete untrash unarchive reinstate
status state progress health condition ready finished
workspace team
test verify check validate
picture image photo media avatar headshot
assign assignee charge responsible
protect protection
transfer handover hand move
pause suspend
tax vat sales
bulk batch collection many every
disruption maintenance
ephemeral private privately
contributor author committer
artifact output
quota cpu memory resource
give grant add
evict eviction
forever permanently permanent
log register record
leave quit exit depart
kick eject expel oust remove
reply respond answer response
announce announcement broadcast publish post
icon logo avatar
permalink link url
unfurl preview
"""

# The resources of web and cloud APIs, each with the everyday words for it (issue 13, round 4):
# a glossary of the domains (chat, mail, telephony, payments, code hosting, clusters), written
# from what the resources are, not from the benchmark's requests. Same format as RELATED. Round 9: an access control
# list is what people call an allowlist (or a whitelist): dev top-1 39.6 -> 40.6 %, top-5 64.6 -> 65.6 %, MRR 0.491 ->
# 0.499, connector= given 69.8 -> 70.8 % (found through a dev miss: "start an allowlist of office IP addresses");
# tuning and held out unchanged.
GLOSSARY = """
node worker machine
service balancer
network_policy firewall
access_control_list allowlist whitelist
ingress route routing hostname domain
job batch task
cron_job cron schedule periodic recurring
horizontal_pod_autoscaler autoscaler autoscale autoscaling
replica_set replica replicas
stateful_set stateful database
daemon_set daemon agent
service_account robot bot
role_binding grant permission access
subject_access_review authorize allowed permission
lease lock leader
payment_intent payment charge purchase
setup_intent save card
checkout hosted payment page cart
portal self service manage
terminal reader pos point sale counter
radar fraud suspicious risk
issuing virtual card cardholder
payout bank transfer withdrawal
invoice bill statement
subscription recurring membership
dispute chargeback contest
reversal refund undo
pull_request merge
review approve approval
reviewer approver
status check result pass passed fail failed success failure
gist paste snippet share
webhook hook callback notify notification http
collaborator member teammate
tarball zip zipball download source
chat message post say tell
ephemeral private whisper only
reaction emoji react
reminder remind later nudge
dnd snooze disturb silence mute
bookmark pin save
incoming owned number line
participant caller attendee member
usage spend spending consumption bill
media picture image photo attachment
label folder tag category
filter rule sort automatically criteria
forwarding forward redirect bounce relay
vacation autoreply away responder
delegate assistant delegation
draft unsent
thread conversation
history sync
watch push subscribe notification
stop unsubscribe unwatch
profile address mailbox
unread unseen new
"""

# word or abbreviation -> the words it stands for (full weight). "ci" is not one: continuous integration
# covers runners, workflows and checks, so it stays a related word of the workflow group (round 6: dev
# top-1 20.8 -> 21.9 %, MRR 0.340 -> 0.345; tuning and held out unchanged). Nor is "sha" ("commit"): a
# SHA is any hash (a sha256 digest of an artifact, a blob); dev MRR 0.345 -> 0.347, tuning top-1 53.2 ->
# 53.7 %.
ALIASES: Mapping[str, str] = {
    "pr": "pull request", "prs": "pull request", "mr": "merge request",
    "dm": "direct message", "dms": "direct message", "im": "direct message",
    "k8s": "kubernetes", "repo": "repository", "repos": "repository", "org": "organization",
    "orgs": "organization", "sms": "message", "mms": "message media",
    "config": "configuration", "env": "environment", "envs": "environment", "auth": "authentication",
    "ssh": "ssh key", "gpg": "gpg key", "2fa": "two factor", "url": "link", "pvc": "persistent volume claim",
    "hpa": "horizontal pod autoscaler", "cronjob": "cron job", "ooo": "out office vacation",
    "stats": "statistics", "info": "information", "id": "identifier",
    "dnd": "do not disturb snooze", "pos": "point sale terminal", "gst": "tax", "otp": "verification code",
    "mfa": "two factor", "ns": "namespace", "svc": "service", "cm": "config map",
    "sa": "service account", "lb": "service",
}

# Phrases whose words mean something else together ("logged in" is not about logs). "clear out" (round 9; the
# dictionaries' phrasal verb: to empty a place of what is not wanted) beside "get rid of" and "clean up": dev top-5
# 58.3 -> 59.4 %, MRR 0.444 -> 0.446, connector= given 63.5 -> 64.6 %; tuning and held out unchanged. "roll out"
# (round 9; to make a new version or service available, the dictionaries' phrasal verb beside "roll back"): dev top-5
# 60.4 -> 61.5 %, MRR 0.447 -> 0.450, paraphrase top-5 57.1 -> 58.7 %; tuning and held out unchanged. Both were found
# through a dev miss, so the blind set is their real check. "throw away" and "throw out" (round 9; to discard, the
# dictionaries' phrasal verbs; "away" alone meets the vacation responder): dev top-1 36.5 -> 37.5 %, MRR 0.461 ->
# 0.468; tuning MRR 0.638 -> 0.639 (top-1 / top-5 unchanged); held out unchanged. In RELATED (round 9): "forever
# permanently permanent" (the dictionaries' synonyms; Gmail's deletes say "permanently", its trash does not): dev MRR
# 0.488 -> 0.491, nothing else moved on either set.
# Round 15, measured and not kept: a two-word phrase split by its object pronoun ("turn it off", "throw them away",
# "roll it back": it, them, him, her, this, that, these, those, me, us, everything, everyone) read as the phrase: no
# request of the tuning file or the dev set says one, and no figure of the validation set moved.
PHRASES: Mapping[str, str] = {
    "logged in": "authenticated", "log in": "authenticate", "sign in": "authenticate", "signed in": "authenticated",
    "who am i": "authenticated user", "sign up": "create register", "set up": "create configure",
    "money back": "refund", "out of office": "vacation autoreply", "look over": "review", "hand over": "transfer",
    "get rid of": "delete", "clean up": "delete", "clear out": "delete", "turn off": "disable", "turn on": "enable",
    "shut down": "stop", "spin up": "create start", "kick out": "remove", "write access": "collaborator permission",
    "read access": "permission", "api key": "key", "credit card": "card", "e mail": "email",
    "in charge of": "assign", "take over": "assign", "roll back": "rollback revert", "undo": "revert",
    "roll out": "rollout deploy", "throw away": "trash discard", "throw out": "trash discard",
    "hang up": "end call", "do not disturb": "dnd snooze", "load balancer": "service", "point of sale": "terminal pos",
    "card reader": "terminal reader", "payment page": "checkout", "customer portal": "portal",
    "user group": "usergroup", "user groups": "usergroup",
    # Round 18: to fire off a letter or a message is to send it quickly (the dictionaries' phrasal verb). Validation
    # top-5 58.3 -> 59.4 %, MRR 0.425 -> 0.428, paraphrase top-5 40.4 -> 42.3 %, connector= given 64.6 -> 65.6 %
    # (top-1 34.4 %); tuning, held out and dev unchanged in every figure. As "send trigger": validation MRR 0.427.
    "fire off": "send",
}

# The groups of RELATED whose words stand for one another as verbs (by their first word): "send deliver post dispatch
# mail email text notify message" are synonyms in the dictionaries' verb senses (to send a message, to mail, to text
# someone); as nouns, "a message" and "a post" are not a sending. A request word read as a noun (roles.word_roles)
# brings only the relatives of its other groups, those whose words are synonyms as nouns ("message sms text mms email
# mail"). Every other group, and every glossary line (resources), is a noun group. Round 11.
_VERB_GROUP_HEADS = """
get list create delete update replace search star send cancel start rerun merge close download upload invite approve
reject lock unlock archive mute follow assign protect transfer pause give evict leave kick announce restore test
"""
VERB_GROUPS = frozenset(_VERB_GROUP_HEADS.split())
# The nouns of a verb group, which stand for its verb as nouns too ("the details of a charge" asks for its get). Without
# them, "which certificate details do I sign with, id abc?" found the list, not the get (test_search_items.py).
VERB_GROUP_NOUNS = frozenset({"detail", "info", "information"})

# Below 1 so the request's own word still ranks first where the catalog has it. Chosen on the
# tuning two thirds of bench_discovery's intents (issue 13, round 3): 0.5 -> 0.8 moved top-5
# 60.5 -> 65.3 % and paraphrase top-5 34.9 -> 47.0 % there; on the held-out third, top-1
# 38.3 -> 40.4 %, top-5 59.6 -> 58.5 %, paraphrase top-5 25.0 -> 37.5 %.
RELATED_WEIGHT = 0.8


VERB_NOUN_STEMS = frozenset(stem(w) for w in VERB_GROUP_NOUNS)


def _build() -> tuple[dict[str, dict[str, float]], dict[str, dict[str, float]], dict[str, tuple[str, ...]]]:
    related: dict[str, dict[str, float]] = {}
    nominal: dict[str, dict[str, float]] = {}  # the same through noun groups only
    for line in (RELATED + GLOSSARY).strip().splitlines():
        # A compound ("network_policy") is the words an API spells it with: a request's word
        # brings them all in, but the compound's own words, each common alone, bring nothing.
        members = [tuple(stem(w) for w in m.split("_")) for m in line.split()]
        noun_group = not members or line.split()[0] not in VERB_GROUPS
        for a in members:
            if len(a) != 1:
                continue
            for b in members:
                for part in b:
                    if part != a[0]:
                        related.setdefault(a[0], {})[part] = RELATED_WEIGHT
                        if noun_group or a[0] in VERB_NOUN_STEMS:
                            nominal.setdefault(a[0], {})[part] = RELATED_WEIGHT
    aliases = {stem(k): tuple(stem(w) for w in v.split()) for k, v in ALIASES.items()}
    return related, nominal, aliases


_RELATED, _NOMINAL, _ALIASES = _build()
_PHRASES = sorted(((tuple(k.split()), v) for k, v in PHRASES.items()), key=lambda kv: -len(kv[0]))
# The phrases by their first word, longest first as in _PHRASES: a word that starts none (most words) is
# passed over without a comparison with each phrase (round 16: rewrite was 0.2-0.5 ms of a 4-5 ms rank).
_PHRASES_AT: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _phrase, _meaning in _PHRASES:
    _PHRASES_AT.setdefault(_phrase[0], []).append((_phrase, _meaning))


def rewrite(words: list[str]) -> list[str]:
    """Lower-case words with known phrases replaced by what they mean ("logged in" → "authenticated")."""
    out: list[str] = []
    i = 0
    while i < len(words):
        for phrase, meaning in _PHRASES_AT.get(words[i], ()):
            if tuple(words[i:i + len(phrase)]) == phrase:
                out.extend(meaning.split())
                i += len(phrase)
                break
        else:
            out.append(words[i])
            i += 1
    return out


def expand(query_stems: list[str], nouns: Collection[int] = ()) -> list[tuple[str, float, int]]:
    """(stem, weight, source index) for a query: its words, their aliases, then related words.

    ``source index`` says which query word a term came from, so a ranker can count how
    many of the query's words a method covers, whatever spelling matched. A word whose index
    is in ``nouns`` (read as a noun from its context) brings only its noun groups' relatives.
    """
    out: dict[str, tuple[float, int]] = {}

    def put(term: str, weight: float, source: int) -> None:
        if term not in out or out[term][0] < weight:
            out[term] = (weight, source)

    for i, s in enumerate(query_stems):
        put(s, 1.0, i)
        for a in _ALIASES.get(s, ()):
            put(a, 1.0, i)
    for i, s in enumerate(query_stems):
        for base in (s, *_ALIASES.get(s, ())):
            for r, w in (_NOMINAL if i in nouns else _RELATED).get(base, {}).items():
                put(r, w, i)
    return [(t, w, i) for t, (w, i) in out.items()]
