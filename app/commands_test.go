package app

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/app/comment"
	"github.com/reviewbot-dev/reviewbot/app/sweep"
	"github.com/reviewbot-dev/reviewbot/checks"
	"github.com/reviewbot-dev/reviewbot/internal/fakegithub"
)

// replies returns the bot's replies to command comment id.
func replies(h *harness, pr *fakegithub.PR, id int64) []string {
	var out []string
	for _, c := range h.fake.IssueComments(pr.Base, pr.Number) {
		if got, ok := parseReplyMarker(c.GetBody()); ok && got == id && c.GetUser().GetLogin() == h.fake.BotLogin() {
			out = append(out, c.GetBody())
		}
	}
	return out
}

func replyTo(t *testing.T, h *harness, pr *fakegithub.PR, id int64) string {
	t.Helper()
	rs := replies(h, pr, id)
	if len(rs) != 1 {
		t.Fatalf("%d replies to comment %d, want 1; posted:\n%s", len(rs), id, h.posted(pr))
	}
	return rs[0]
}

func (sd *seed004) deliverComment(t *testing.T, c github.IssueComment, action, from string, want int) {
	t.Helper()
	sd.h.deliver("issue_comment", issueCommentPayload(t, sd.h, sd.pr, c, action, from), want)
}

// The thread's two commands: the bare one resolves to the latest run that
// left results (the head's gated run left none), with the note that it
// stays in force; the pinned one validates run 31147925932.
func TestSeed004ReuseCommands(t *testing.T) {
	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(t, h, nil)
	sd.deliverComment(t, sd.bare, "created", "", http.StatusAccepted)
	sd.deliverComment(t, sd.pinned, "created", "", http.StatusAccepted)
	h.wait()
	bare, pinned := replyTo(t, h, sd.pr, sd.bare.GetID()), replyTo(t, h, sd.pr, sd.pinned.GetID())
	golden(t, "seed004.reuse-bare.md", bare)
	golden(t, "seed004.reuse-pinned.md", pinned)
	for _, want := range []string{"resolves now to", "[31147925932](https://github.com/SemiAnalysisAI/InferenceX/actions/runs/31147925932)",
		"`" + seed004Sweep + "`", "`success`", "`eval_results_all`, `results_bmk`", "is not one-shot: it stays in force for every later push"} {
		if !strings.Contains(bare, want) {
			t.Errorf("bare reply lacks %q:\n%s", want, bare)
		}
	}
	if !strings.Contains(pinned, "pins this sweep run") || strings.Contains(pinned, "not one-shot") {
		t.Errorf("pinned reply:\n%s", pinned)
	}
	for _, c := range []github.IssueComment{sd.bare, sd.pinned} {
		if rs := h.fake.Reactions(sd.pr.Base, c.GetID()); len(rs) != 1 || rs[0].GetContent() != "eyes" {
			t.Errorf("reactions on %d: %+v", c.GetID(), rs)
		}
	}
	// Redelivering changes nothing: the replies are not posted twice.
	sd.deliverComment(t, sd.pinned, "created", "", http.StatusAccepted)
	h.wait()
	if n := len(replies(h, sd.pr, sd.pinned.GetID())); n != 1 {
		t.Fatalf("%d replies after a second delivery", n)
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteEditComment)); n != 0 {
		t.Fatalf("an unchanged reply was edited %d times", n)
	}
}

func TestReuseCommandReplies(t *testing.T) {
	tests := []struct {
		name        string
		association string
		body        string
		setup       func(t *testing.T, sd *seed004)
		want        []string
		not         []string
	}{
		{name: "unauthorized /use", association: "CONTRIBUTOR", body: "/use 31147925932",
			want: []string{"was ignored: its author association is `CONTRIBUTOR`", "only OWNER, MEMBER or COLLABORATOR may authorize"},
			not:  []string{"pins"}},
		{name: "unknown run id", association: "MEMBER", body: "/use 999",
			want: []string{"cannot be used: run 999 does not exist in SemiAnalysisAI/InferenceX", "Copy the id from the run's URL"}},
		{name: "bare /use", association: "MEMBER", body: "/use",
			want: []string{"`/use` needs the id of the run to reuse"}},
		{name: "pinned run force-pushed away", association: "MEMBER", body: "/use 31147925932",
			setup: func(t *testing.T, sd *seed004) {
				if _, err := sd.h.fake.ForcePush(context.Background(), sd.pr, checks.NewMemTree(map[string]string{"README.md": "x\n"}), "", time.Time{}); err != nil {
					t.Fatal(err)
				}
			},
			want: []string{"run 31147925932 ran on commit 11b75f153, which is no longer one of this PR's commits", "Pin a run of a commit the PR still has"}},
		{name: "run of another workflow", association: "MEMBER", body: "/use 555",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 555, Workflow: "docs.yml", Conclusion: "success", HeadSHA: seed004Head})
			},
			want: []string{"run 555 is a run of the workflow `docs`, not of the sweep workflow `run-sweep.yml`"}},
		{name: "push run", association: "MEMBER", body: "/use 556",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 556, Event: "push", Conclusion: "success", HeadSHA: seed004Head})
			},
			want: []string{"run 556 was started by a `push` event, not by this PR (`pull_request`)"}},
		{name: "run still running", association: "MEMBER", body: "/use 557",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 557, Status: "in_progress", HeadSHA: seed004Head})
			},
			want: []string{"run 557 is `in_progress`, not completed", "edit this comment"}},
		{name: "run timed out", association: "MEMBER", body: "/use 558",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 558, Conclusion: "timed_out", HeadSHA: seed004Head})
			},
			want: []string{"run 558 concluded `timed_out`; a pinned run must have concluded success, failure or cancelled"}},
		{name: "cancelled fail-fast run with results is fine", association: "OWNER", body: "/use 559",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 559, Conclusion: "cancelled", HeadSHA: seed004Head})
				sd.h.fake.AddArtifact(sd.pr.Base, 559, fakegithub.ArtifactSpec{Name: "bmk_agentic_kimik3", Data: []byte("PK")})
			},
			want: []string{"pins this sweep run", "`cancelled`", "`bmk_agentic_kimik3`"}},
		{name: "run without live results", association: "MEMBER", body: "/use 560",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.AddWorkflowRun(sd.pr.Base, fakegithub.WorkflowRunSpec{ID: 560, Conclusion: "success", HeadSHA: seed004Head})
				sd.h.fake.AddArtifact(sd.pr.Base, 560, fakegithub.ArtifactSpec{Name: "results_bmk", Data: []byte("PK"), Expired: true})
				sd.h.fake.AddArtifact(sd.pr.Base, 560, fakegithub.ArtifactSpec{Name: "logs", Data: []byte("PK")})
			},
			want: []string{"run 560 has no unexpired result artifact", "`results_bmk` (expired), `logs`"}},
		{name: "bare, nothing to reuse", association: "MEMBER", body: "Sweep is green.\n\n/reuse-sweep-run",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.Inject(&fakegithub.Fault{Route: fakegithub.RouteRunArtifacts, Status: http.StatusOK,
					Body: `{"total_count":0,"artifacts":[]}`})
			},
			want: []string{"no successful `pull_request` run of `run-sweep.yml` on branch `kimik25-b200-nightly` ran on one of this PR's commits and left result artifacts (2 completed runs checked)",
				"is not one-shot"}},
		{name: "reuse-blocking label", association: "MEMBER", body: "/use 31147925932",
			setup: func(t *testing.T, sd *seed004) { sd.h.fake.SetLabels(sd.pr, "full-sweep-fail-fast", "evals-only") },
			want:  []string{"pins this sweep run", "🟡 The PR carries `evals-only`, which blocks reuse while applied"}},
		{name: "no full-sweep label", association: "MEMBER", body: "/use 31147925932",
			setup: func(t *testing.T, sd *seed004) { sd.h.fake.SetLabels(sd.pr) },
			want:  []string{"🟡 The PR carries none of the full-sweep labels (`full-sweep-fail-fast`, `full-sweep-enabled`, `non-canary-full-sweep-enabled`)"}},
		{name: "API error", association: "MEMBER", body: "/use 31147925932",
			setup: func(t *testing.T, sd *seed004) {
				sd.h.fake.Inject(fakegithub.ServerError(fakegithub.RouteWorkflowRun, http.StatusBadGateway, 0))
			},
			want: []string{"could not be checked: get run 31147925932", "502", "Edit the comment to have the App check it again"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
			sd := serveSeed004(t, h, nil)
			if tt.setup != nil {
				tt.setup(t, sd)
			}
			h.fake.ResetCalls()
			c := sd.postComment(t, "someone", tt.association, tt.body, time.Time{})
			h.wait()
			reply := replyTo(t, h, sd.pr, c.GetID())
			for _, w := range tt.want {
				if !strings.Contains(reply, w) {
					t.Errorf("reply lacks %q:\n%s", w, reply)
				}
			}
			for _, w := range tt.not {
				if strings.Contains(reply, w) {
					t.Errorf("reply has %q:\n%s", w, reply)
				}
			}
			if rs := h.fake.Reactions(sd.pr.Base, c.GetID()); len(rs) != 1 || rs[0].GetContent() != "eyes" {
				t.Errorf("reactions %+v, want 👀", rs)
			}
			if tt.association == "CONTRIBUTOR" {
				for _, call := range h.fake.Calls() {
					if strings.Contains(call.Path, "/actions/") {
						t.Errorf("an unauthorized command looked up %s", call.Path)
					}
				}
			}
		})
	}
}

// Editing a command re-checks it and edits its one reply; removing the
// command or deleting the comment says it authorizes nothing any more.
func TestEditedCommandUpdatesItsReply(t *testing.T) {
	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)))
	sd := serveSeed004(t, h, nil)
	c := sd.postComment(t, "maint", "MEMBER", "/use 999", time.Time{})
	h.wait()
	if r := replyTo(t, h, sd.pr, c.GetID()); !strings.Contains(r, "run 999 does not exist") {
		t.Fatalf("first reply:\n%s", r)
	}
	edit := func(body, from string) {
		t.Helper()
		e, err := h.fake.EditComment(sd.pr.Base, c.GetID(), body, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		sd.deliverComment(t, e, "edited", from, http.StatusAccepted)
		h.wait()
	}
	edit(fmt.Sprintf("Typo, I meant:\n\n/use %d", seed004SweepRun), "/use 999")
	if r := replyTo(t, h, sd.pr, c.GetID()); !strings.Contains(r, "pins this sweep run") {
		t.Fatalf("reply after the edit:\n%s", r)
	}
	edit("never mind", fmt.Sprintf("/use %d", seed004SweepRun))
	if r := replyTo(t, h, sd.pr, c.GetID()); !strings.Contains(r, "was removed in an edit: it authorizes no reuse any more") {
		t.Fatalf("reply after removing the command:\n%s", r)
	}
	edit("/reuse-sweep-run", "never mind")
	h.fake.DeleteComment(sd.pr.Base, c.GetID())
	sd.deliverComment(t, c, "deleted", "", http.StatusAccepted)
	h.wait()
	if r := replyTo(t, h, sd.pr, c.GetID()); !strings.Contains(r, "was deleted: it authorizes no reuse any more") {
		t.Fatalf("reply after the deletion:\n%s", r)
	}
	if n := len(h.fake.CallsTo(fakegithub.RouteCreateComment)); n != 1 {
		t.Fatalf("%d comments posted, want the one reply", n)
	}
	// A deleted comment that never got a reply gets none.
	other := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: "x", Association: "MEMBER", Body: "/use 5"})
	h.fake.DeleteComment(sd.pr.Base, other.GetID())
	sd.deliverComment(t, other, "deleted", "", http.StatusAccepted)
	h.wait()
	if n := len(replies(h, sd.pr, other.GetID())); n != 0 {
		t.Fatalf("%d replies to a deleted comment nobody answered", n)
	}
	// Comments without commands are not the App's business.
	plain := h.fake.AddComment(sd.pr.Base, sd.pr.Number, fakegithub.CommentSpec{Login: "x", Body: "> /use 5\nquoted"})
	sd.deliverComment(t, plain, "created", "", http.StatusOK)
}

// The associations that may issue commands are configurable.
func TestCommandAssociationsAreConfigurable(t *testing.T) {
	h := newHarness(t, atDate(seed004Day.Add(13*time.Hour)), func(c *Config) { c.CommandAssociations = []string{"owner"} })
	sd := serveSeed004(t, h, nil)
	c := sd.postComment(t, "maint", "MEMBER", "/use 31147925932", time.Time{})
	h.wait()
	if r := replyTo(t, h, sd.pr, c.GetID()); !strings.Contains(r, "its author association is `MEMBER`, and only OWNER may authorize") {
		t.Fatalf("reply:\n%s", r)
	}
}

func TestRenderCommandReply(t *testing.T) {
	r := &commandReply{CommentID: 7, CommentURL: "https://example.invalid/c7", Author: "a", Association: "MEMBER",
		Command: comment.Reuse{Name: comment.CmdUse, RunID: 5}, Allowed: DefaultCommandAssociations, Authorized: true, Workflow: "run-sweep.yml",
		Res: sweep.Resolution{Run: &sweep.Run{ID: 5, URL: "https://example.invalid/runs/5", HeadSHA: "abc", Conclusion: "failure", Artifacts: []string{"results_bmk"}}}}
	out := r.render()
	if id, ok := parseReplyMarker(out); !ok || id != 7 {
		t.Fatalf("marker: %d %v", id, ok)
	}
	for _, line := range strings.Split(out, "\n") {
		if _, ok := comment.ParseReuse(line); ok {
			t.Errorf("the reply holds a command line %q: the App would read its own reply as one", line)
		}
	}
	if _, ok := parseReplyMarker("<!-- reviewbot:reuse-reply comment=x -->"); ok {
		t.Error("a malformed marker parses")
	}
}
