package app

import (
	"context"
	"encoding/json"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/checks/signoff"
	"github.com/reviewbot-dev/reviewbot/checks/trees"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
	"github.com/reviewbot-dev/reviewbot/reviewer"
)

// These are the rules of which commits a verdict stands on (README,
// "Sign-off verification"), each as an attack on the required status
// against the fake, with GitHub's documented delivery behaviour:
// deliveries arrive late, twice or out of order; anyone with write access
// edits any comment; a PR's base can change; a force push can return a
// branch to an earlier commit.

// laterTree is the seed's head with one more file: a new commit to push.
func laterTree(t *testing.T, name string) checks.Tree {
	t.Helper()
	fx, err := trees.LoadFixture(context.Background(), seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	return &trees.Overlay{Lower: fx.Head, Upper: checks.NewMemTree(map[string]string{"docs/" + name + ".md": name + "\n"})}
}

// pushAt pushes tree to the PR at time at and returns the new head and the
// synchronize delivery GitHub sends for it (not delivered yet).
func pushAt(t *testing.T, h *harness, sd *seed004, tree checks.Tree, at time.Time) (string, []byte) {
	t.Helper()
	sha, err := h.fake.PushAt(context.Background(), sd.pr, tree, "", at)
	if err != nil {
		t.Fatal(err)
	}
	return sha, prPayload(t, h, sd.pr, "synchronize")
}

// deliverAt delivers a pull_request delivery with the App's clock at at
// and waits for its job.
func deliverAt(h *harness, at time.Time, payload []byte) {
	h.t.Helper()
	h.at(at, func() {
		h.deliver("pull_request", payload, http.StatusAccepted)
		h.wait()
	})
}

// signAt posts the owner's passing sign-off at time at (the App's clock
// too) and waits for the verdict.
func signAt(t *testing.T, h *harness, sd *seed004, link string, at time.Time) {
	t.Helper()
	h.at(at, func() {
		sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), at)
		h.wait()
	})
}

func wantWithdrawn(t *testing.T, h *harness, sd *seed004, sha, why string) {
	t.Helper()
	if st := lastStatus(t, h, sd.pr, sha); st.GetState() != "failure" {
		t.Fatalf("status of %.12s after the withdrawal: %s %q", sha, st.GetState(), st.GetDescription())
	}
	v := verdictFor(t, h, sd.pr, sha)
	if !strings.HasPrefix(v, "## ❌❌❌ **REJECTED** ❌❌❌") || !strings.Contains(v, "**Withdrawn:**") || !strings.Contains(v, why) {
		t.Fatalf("verdict of %.12s after the withdrawal:\n%s", sha, v)
	}
}

// A verdict stands only while its sign-off does: when the sign-off goes,
// every commit whose status rested on it is re-decided, not only the
// current head's — a force push back to the signed commit must not find
// it passing.
func TestWithdrawalReachesEveryHead(t *testing.T) {
	pushed := signedAt.Add(10 * time.Minute)
	withdrawnAt := signedAt.Add(20 * time.Minute)
	for _, tt := range []struct {
		name string
		// sign signs seed004Head and returns how to withdraw it.
		sign func(t *testing.T, h *harness, sd *seed004, link string) func()
		why  string
	}{
		{"comment deleted", func(t *testing.T, h *harness, sd *seed004, link string) func() {
			c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
			return func() {
				h.fake.DeleteComment(sd.pr.Base, c.GetID())
				sd.deliverComment(t, c, "deleted", "", http.StatusAccepted)
			}
		}, "it was deleted"},
		{"edited by its author into something else", func(t *testing.T, h *harness, sd *seed004, link string) func() {
			body := passingSignoff(t, link)
			c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, signedAt)
			return func() {
				edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), "On second thought, not yet.", withdrawnAt)
				if err != nil {
					t.Fatal(err)
				}
				sd.deliverComment(t, edited, "edited", body, http.StatusAccepted)
			}
		}, "no longer holds the sign-off phrase"},
		{"edited by someone else", func(t *testing.T, h *harness, sd *seed004, link string) func() {
			body := passingSignoff(t, link)
			c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", body, signedAt)
			return func() {
				edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), body+"\nP.S. ship it\n", withdrawnAt)
				if err != nil {
					t.Fatal(err)
				}
				p := commentBy(t, h, sd.pr, edited, "edited", body, "mallory")
				h.deliver("issue_comment", p, http.StatusAccepted)
			}
		}, "`mallory` edited it"},
		{"review dismissed", func(t *testing.T, h *harness, sd *seed004, link string) func() {
			rv := h.fake.AddReview(sd.pr.Base, sd.pr, fakegithub.ReviewSpec{Login: "Ankur-singh", State: "APPROVED", Body: passingSignoff(t, link),
				CommitID: seed004Head, Association: "COLLABORATOR", Submitted: signedAt})
			deliverReview(t, h, sd, rv, "submitted")
			return func() {
				dismissed, err := h.fake.DismissReview(sd.pr.Base, rv.GetID())
				if err != nil {
					t.Fatal(err)
				}
				deliverReview(t, h, sd, dismissed, "dismissed")
			}
		}, "the review was dismissed"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := upstreamRecipe(t, h, true)
			var withdraw func()
			h.at(signedAt, func() { withdraw = tt.sign(t, h, sd, link); h.wait() })
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
				t.Fatalf("status %s %q", st.GetState(), st.GetDescription())
			}
			// The author pushes; the signed commit keeps its verdict.
			moved, payload := pushAt(t, h, sd, laterTree(t, "h2"), pushed)
			deliverAt(h, pushed, payload)
			// The owner withdraws the sign-off while H2 is the head.
			h.at(withdrawnAt, func() { withdraw(); h.wait() })
			wantWithdrawn(t, h, sd, seed004Head, tt.why)
			if st := signoffStatus(h, sd.pr, moved); len(st) > 0 && st[len(st)-1].GetState() == "success" {
				t.Fatalf("the unsigned head passes: %q", st[len(st)-1].GetDescription())
			}
			// A force push back to the signed commit finds it failing.
			back := withdrawnAt.Add(5 * time.Minute)
			if err := h.fake.ForcePushTo(sd.pr, seed004Head, back); err != nil {
				t.Fatal(err)
			}
			deliverAt(h, back, prPayload(t, h, sd.pr, "synchronize"))
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
				t.Fatalf("after a force push back, the signed commit's status is %s %q", st.GetState(), st.GetDescription())
			}
		})
	}
}

// What a withdrawal re-decides comes from the App's own record, not only
// from its verdict comments: anyone with write access can delete the
// bot's verdict or edit the sign-off it names, and the status it set must
// still follow the sign-off.
func TestWithdrawalSurvivesATamperedVerdict(t *testing.T) {
	for _, tt := range []struct {
		name   string
		tamper func(t *testing.T, h *harness, sd *seed004, verdict github.IssueComment)
	}{
		{"verdict deleted", func(t *testing.T, h *harness, sd *seed004, verdict github.IssueComment) {
			h.fake.DeleteComment(sd.pr.Base, verdict.GetID())
		}},
		{"verdict's source edited", func(t *testing.T, h *harness, sd *seed004, verdict github.IssueComment) {
			body := regexp.MustCompile(`signoff-source comment=\d+`).ReplaceAllString(verdict.GetBody(), "signoff-source comment=1")
			if _, err := h.fake.EditComment(sd.pr.Base, verdict.GetID(), body, signedAt.Add(5*time.Minute)); err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(passingDay))
			sd := servePassing(t, h)
			link := upstreamRecipe(t, h, true)
			var c github.IssueComment
			h.at(signedAt, func() {
				c = sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
				h.wait()
			})
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
				t.Fatalf("status %s", st.GetState())
			}
			var verdict github.IssueComment
			for _, vc := range h.fake.IssueComments(sd.pr.Base, sd.pr.Number) {
				if sha, ok := signoff.ParseMarker(vc.GetBody()); ok && sha == seed004Head {
					verdict = vc
				}
			}
			tt.tamper(t, h, sd, verdict)
			h.at(signedAt.Add(10*time.Minute), func() {
				h.fake.DeleteComment(sd.pr.Base, c.GetID())
				sd.deliverComment(t, c, "deleted", "", http.StatusAccepted)
				h.wait()
			})
			if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
				t.Fatalf("status after the withdrawal: %s %q", st.GetState(), st.GetDescription())
			}
		})
	}
}

// Head order comes from the pushes: a late delivery of an older push
// never moves the recorded head back, so a later sign-off is credited to
// the commit that is the head when it is written.
func TestLatePushDeliveryDoesNotMoveTheHeadBack(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	t2, t3 := signedAt.Add(10*time.Minute), signedAt.Add(20*time.Minute)
	h2, late := pushAt(t, h, sd, laterTree(t, "h2"), t2)
	h3, p3 := pushAt(t, h, sd, laterTree(t, "h3"), t3)
	deliverAt(h, t3, p3)
	// H2's delivery arrives last, long after H3's.
	deliverAt(h, t3.Add(5*time.Minute), late)
	signAt(t, h, sd, link, t3.Add(10*time.Minute))

	if st := lastStatus(t, h, sd.pr, h3); st.GetState() != "success" {
		t.Fatalf("the head's status %s %q; posted:\n%s", st.GetState(), st.GetDescription(), h.posted(sd.pr))
	}
	if vs := verdicts(t, h, sd.pr)[h2]; len(vs) != 0 {
		t.Fatalf("a verdict for the replaced head:\n%s", vs[0])
	}
	for _, st := range signoffStatus(h, sd.pr, h2) {
		if st.GetState() == "success" {
			t.Fatalf("the replaced head passes: %q", st.GetDescription())
		}
	}

	// A duplicate of H3's delivery changes nothing; a real force push
	// back to an older commit, delivered in order, is the head.
	deliverAt(h, t3.Add(15*time.Minute), p3)
	back := t3.Add(20 * time.Minute)
	if err := h.fake.ForcePushTo(sd.pr, seed004Head, back); err != nil {
		t.Fatal(err)
	}
	deliverAt(h, back, prPayload(t, h, sd.pr, "synchronize"))
	h.at(back.Add(5*time.Minute), func() {
		sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link)+"\nAgain on the old commit.\n", back.Add(5*time.Minute))
		h.wait()
	})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("the head after a force push back: %s %q", st.GetState(), st.GetDescription())
	}
}

// A push delivery whose "before" is not the recorded head (one in between
// was never delivered) is not trusted blindly either: the job reads the
// head from the API.
func TestOutOfOrderPushReadsTheHead(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	t2, t3 := signedAt.Add(10*time.Minute), signedAt.Add(20*time.Minute)
	_, late := pushAt(t, h, sd, laterTree(t, "h2"), t2)
	h3, _ := pushAt(t, h, sd, laterTree(t, "h3"), t3)
	h.fake.ResetCalls()
	deliverAt(h, t3, late) // H2's delivery, after H3 was pushed; H3's is lost
	if n := len(h.fake.CallsTo(fakegithub.RoutePull)); n == 0 {
		t.Fatal("the PR was not read: an out-of-order delivery's head was trusted")
	}
	newest, ok, err := h.srv.ledger.Newest(context.Background(), newPRJob(0, sd.pr.Base.Owner, sd.pr.Base.Name, sd.pr.Number).key)
	if err != nil || !ok || newest != h3 {
		t.Fatalf("recorded head %.12s (%v, %v), want %.12s", newest, ok, err, h3)
	}
}

// A retargeted PR has another diff, other owners and other evidence: the
// verdicts verified against the old base no longer stand, nor do the
// sign-offs written before the change.
func TestRetargetWithdrawsTheVerdict(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	var signoff []byte
	h.at(signedAt, func() {
		c := sd.postComment(t, "Ankur-singh", "COLLABORATOR", passingSignoff(t, link), signedAt)
		signoff = issueCommentPayload(t, h, sd.pr, c, "created", "")
		h.wait()
	})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("status %s", st.GetState())
	}
	fx, err := trees.LoadFixture(context.Background(), seed004Fixture)
	if err != nil {
		t.Fatal(err)
	}
	at := signedAt.Add(30 * time.Minute)
	oldBase := sd.pr.BaseSHA
	release := &trees.Overlay{Lower: fx.Base, Upper: checks.NewMemTree(map[string]string{"docs/release.md": "release branch\n"})}
	if _, err := h.fake.Retarget(context.Background(), sd.pr, "release", release, at); err != nil {
		t.Fatal(err)
	}
	edited := prPayload(t, h, sd.pr, "edited")
	edited = withChanges(t, edited, map[string]any{"base": map[string]any{"ref": map[string]any{"from": "main"}, "sha": map[string]any{"from": oldBase}}})
	deliverAt(h, at, edited)
	wantWithdrawn(t, h, sd, seed004Head, "base changed")

	// A late (or repeated) delivery of the sign-off written before the
	// change does not bring the verdict back.
	h.at(at.Add(time.Minute), func() {
		h.deliver("issue_comment", signoff, http.StatusAccepted)
		h.wait()
	})
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status after a late delivery of the old sign-off: %s %q", st.GetState(), st.GetDescription())
	}
	// A sign-off written against the new base is verified.
	signAt(t, h, sd, link, at.Add(10*time.Minute))
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "success" {
		t.Fatalf("status after a new sign-off: %s %q; posted:\n%s", st.GetState(), st.GetDescription(), h.posted(sd.pr))
	}
}

// The editor is the author of what an edit adds: a reuse command edited
// into a member's comment by someone else is nobody's command — neither
// its reply nor check 4 of a verdict credits it to the comment's author.
func TestCommandEditedInBySomeoneElse(t *testing.T) {
	h := newHarness(t, atDate(passingDay))
	sd := servePassing(t, h)
	link := upstreamRecipe(t, h, true)
	// The thread's own commands are gone: the edited one is the only one.
	for _, c := range []int64{sd.bare.GetID(), sd.pinned.GetID()} {
		h.fake.DeleteComment(sd.pr.Base, c)
	}
	c := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakeComment("xinli-sw", "MEMBER", "Looks good to me.", signedAt.Add(-time.Hour)))
	cmd := "/reuse-sweep-run " + strconv.FormatInt(seed004SweepRun, 10)
	edited, err := h.fake.EditComment(sd.pr.Base, c.GetID(), cmd, signedAt.Add(-30*time.Minute))
	if err != nil {
		t.Fatal(err)
	}
	h.deliver("issue_comment", commentBy(t, h, sd.pr, edited, "edited", "Looks good to me.", "mallory"), http.StatusAccepted)
	h.wait()
	reply := ""
	for _, rc := range h.fake.IssueComments(sd.pr.Base, sd.pr.Number) {
		if id, ok := parseReplyMarker(rc.GetBody()); ok && id == c.GetID() {
			reply = rc.GetBody()
		}
	}
	if !strings.Contains(reply, "was ignored") || !strings.Contains(reply, "`mallory` edited it") || strings.Contains(reply, "pins this sweep run") {
		t.Fatalf("reply to the edited command:\n%s", reply)
	}
	signAt(t, h, sd, link, signedAt)
	v := verdictFor(t, h, sd.pr, seed004Head)
	if lines := checkLines(t, v); !strings.Contains(lines[4], "FAIL") {
		t.Fatalf("check 4 credits the edited command: %s\n%s", lines[4], v)
	}
	if st := lastStatus(t, h, sd.pr, seed004Head); st.GetState() != "failure" {
		t.Fatalf("status %s", st.GetState())
	}
}

// Hidden markers count only on the bot's own comments, and for the
// contributor reminder on the repository workflow's: anyone else pasting
// it does not keep contributors from being reminded.
func TestPastedWelcomeMarkerIsNotTrusted(t *testing.T) {
	for _, tt := range []struct {
		login string
		want  int
	}{
		{"contributor", 2},           // the pasted one and the bot's
		{"github-actions[bot]", 1},   // the workflow's counts
		{"github-actions-bot", 2},    // a look-alike person does not
		{"reviewbot-pretender", 2},   // nor anyone else
		{"other-app[bot]", 2},        // nor another App
		{fakeBotLoginPlaceholder, 1}, // the bot's own
	} {
		t.Run(tt.login, func(t *testing.T) {
			h, pr, payload := serveSeed001(t)
			login := tt.login
			if login == fakeBotLoginPlaceholder {
				login = h.fake.BotLogin()
			}
			h.fake.AddIssueComment(pr.Base, pr.Number, login, "Please follow the checklist.\n"+reviewer.WelcomeMarker)
			h.deliver("pull_request", payload, http.StatusAccepted)
			h.wait()
			n := 0
			for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
				if reviewer.HasWelcomeMarker(c.GetBody()) {
					n++
				}
			}
			if n != tt.want {
				t.Fatalf("%d comments with the reminder's marker, want %d", n, tt.want)
			}
		})
	}
}

const fakeBotLoginPlaceholder = "<the bot>"

// deliverReview delivers a pull_request_review event for review rv.
func deliverReview(t *testing.T, h *harness, sd *seed004, rv github.PullRequestReview, action string) {
	t.Helper()
	prJSON, err := h.fake.PRJSON(context.Background(), sd.pr)
	if err != nil {
		t.Fatal(err)
	}
	ev := map[string]any{"action": action, "pull_request": prJSON, "repository": h.fake.RepoJSON(sd.pr.Base),
		"installation": map[string]any{"id": installID}, "review": rv, "sender": rv.User}
	h.deliver("pull_request_review", mustJSON(t, ev), http.StatusAccepted)
}

// withChanges sets a delivery's "changes" (what an edited event changed).
func withChanges(t *testing.T, payload []byte, changes map[string]any) []byte {
	t.Helper()
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		t.Fatal(err)
	}
	ev["changes"] = changes
	return mustJSON(t, ev)
}
