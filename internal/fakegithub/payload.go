package fakegithub

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/go-github/v62/github"

	"github.com/reviewbot-dev/reviewbot/checks/trees"
)

// AddPayloadPR serves the pull request a webhook payload names (its
// repository, number, head and base SHAs and refs, fork, labels, author,
// draft flag), with the contents of a fixture PR directory. Real payloads
// then drive the App unchanged.
func (s *Server) AddPayloadPR(ctx context.Context, payload []byte, fixtureDir string) (*PR, error) {
	var ev struct {
		PullRequest *github.PullRequest `json:"pull_request"`
	}
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	pr := ev.PullRequest
	if pr == nil {
		return nil, errors.New("payload has no pull_request")
	}
	fx, err := trees.LoadFixture(ctx, fixtureDir)
	if err != nil {
		return nil, err
	}
	labels := []string{}
	for _, l := range pr.Labels {
		labels = append(labels, l.GetName())
	}
	spec := PRSpec{
		Repo: pr.GetBase().GetRepo().GetFullName(), Number: pr.GetNumber(),
		Base: fx.Base, Head: fx.Head,
		BaseSHA: pr.GetBase().GetSHA(), HeadSHA: pr.GetHead().GetSHA(),
		BaseRef: pr.GetBase().GetRef(), HeadRef: pr.GetHead().GetRef(),
		Title: pr.GetTitle(), Body: pr.GetBody(), Author: pr.GetUser().GetLogin(),
		Labels: labels, Draft: pr.GetDraft(), AuthorAssociation: pr.GetAuthorAssociation(),
	}
	if h := pr.GetHead().GetRepo().GetFullName(); h != "" && h != spec.Repo {
		spec.HeadRepo = h
	}
	return s.AddPR(ctx, spec)
}

// RewritePayload points a webhook payload (a real one, say) at a PR of the
// fake: the PR, repository and installation fields are replaced, every
// other field is kept as it was.
func (s *Server) RewritePayload(ctx context.Context, payload []byte, pr *PR, installation int64) ([]byte, error) {
	var ev map[string]any
	if err := json.Unmarshal(payload, &ev); err != nil {
		return nil, fmt.Errorf("payload: %w", err)
	}
	prJSON, err := s.PRJSON(ctx, pr)
	if err != nil {
		return nil, err
	}
	asMap := func(v any) (map[string]any, error) {
		b, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		var m map[string]any
		return m, json.Unmarshal(b, &m)
	}
	newPR, err := asMap(prJSON)
	if err != nil {
		return nil, err
	}
	if old, ok := ev["pull_request"].(map[string]any); ok {
		for k, v := range newPR {
			old[k] = v
		}
		newPR = old
	}
	ev["pull_request"] = newPR
	ev["number"] = pr.Number
	if ev["action"] == "synchronize" {
		// GitHub names the push: the head it replaced and the new one.
		var before, after string
		s.Locked(func() { before, after = pr.Before, pr.HeadSHA })
		if _, ok := ev["before"]; !ok && before != "" {
			ev["before"] = before
		}
		if _, ok := ev["after"]; !ok {
			ev["after"] = after
		}
	}
	if ev["repository"], err = asMap(s.RepoJSON(pr.Base)); err != nil {
		return nil, err
	}
	ev["installation"] = map[string]any{"id": installation}
	return json.MarshalIndent(ev, "", "  ")
}
