package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"
)

// actionsPR is what the event payload of a GitHub Actions run says about
// the pull request it runs for (pull_request and pull_request_target
// events), the defaults of `reviewbot review` inside Actions.
type actionsPR struct {
	Number         int
	BaseSHA        string
	HeadSHA        string
	Owner, Repo    string
	Author, Title  string
	Body           string
	Labels         []string
	Workspace      string // GITHUB_WORKSPACE, the checkout
	EventPath      string
	BaseRef, Event string
}

// actionsEvent reads the pull request of the Actions run from
// GITHUB_EVENT_PATH. It returns nil without error outside Actions and for
// events that are not about a pull request (a push has no PR to default
// to); a payload that cannot be read is an error, since the run would
// otherwise review the wrong thing silently.
func actionsEvent(getenv func(string) string) (*actionsPR, error) {
	if getenv("GITHUB_ACTIONS") != "true" {
		return nil, nil
	}
	path := getenv("GITHUB_EVENT_PATH")
	if path == "" {
		return nil, nil
	}
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH: %w", err)
	}
	var ev struct {
		Number      int `json:"number"`
		PullRequest *struct {
			Number int    `json:"number"`
			Title  string `json:"title"`
			Body   string `json:"body"`
			User   struct {
				Login string `json:"login"`
			} `json:"user"`
			Labels []struct {
				Name string `json:"name"`
			} `json:"labels"`
			Base struct {
				SHA  string `json:"sha"`
				Ref  string `json:"ref"`
				Repo struct {
					Name  string `json:"name"`
					Owner struct {
						Login string `json:"login"`
					} `json:"owner"`
				} `json:"repo"`
			} `json:"base"`
			Head struct {
				SHA string `json:"sha"`
			} `json:"head"`
		} `json:"pull_request"`
	}
	if err := json.Unmarshal(raw, &ev); err != nil {
		return nil, fmt.Errorf("GITHUB_EVENT_PATH %s: not a JSON event payload: %w", path, err)
	}
	pr := ev.PullRequest
	if pr == nil {
		return nil, nil
	}
	out := &actionsPR{
		Number: pr.Number, BaseSHA: pr.Base.SHA, HeadSHA: pr.Head.SHA, BaseRef: pr.Base.Ref,
		Owner: pr.Base.Repo.Owner.Login, Repo: pr.Base.Repo.Name,
		Author: pr.User.Login, Title: pr.Title, Body: pr.Body,
		Workspace: getenv("GITHUB_WORKSPACE"), EventPath: path, Event: getenv("GITHUB_EVENT_NAME"),
	}
	if out.Number == 0 {
		out.Number = ev.Number
	}
	for _, l := range pr.Labels {
		out.Labels = append(out.Labels, l.Name)
	}
	if out.Number <= 0 || !isSHA(out.BaseSHA) || !isSHA(out.HeadSHA) {
		return nil, errors.New("GITHUB_EVENT_PATH " + path + ": the pull_request payload lacks its number or base/head SHAs")
	}
	return out, nil
}

func isSHA(s string) bool {
	if len(s) != 40 && len(s) != 64 {
		return false
	}
	return strings.Trim(s, "0123456789abcdef") == ""
}
