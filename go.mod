module github.com/reviewbot-dev/reviewbot

go 1.26.0

require (
	github.com/bluekeyes/go-gitdiff v0.9.0
	github.com/bmatcuk/doublestar/v4 v4.10.4
	github.com/google/go-cmp v0.7.0
	github.com/pmezard/go-difflib v1.0.0
	golang.org/x/sys v0.47.0
	golang.org/x/term v0.45.0
	gopkg.in/yaml.v3 v3.0.1
	mvdan.cc/sh/v3 v3.14.1
)

require github.com/hmarr/codeowners v1.2.1
