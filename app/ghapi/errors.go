package ghapi

import (
	"errors"
	"net/http"

	"github.com/google/go-github/v62/github"
)

// IsStatus reports whether err is a GitHub error response with status.
func IsStatus(err error, status int) bool {
	var er *github.ErrorResponse
	if errors.As(err, &er) && er.Response != nil {
		return er.Response.StatusCode == status
	}
	return false
}

// IsNotFound reports a 404: a deleted branch, PR or repository.
func IsNotFound(err error) bool { return IsStatus(err, http.StatusNotFound) }
