package fakegithub

import (
	"net/http"
	"strconv"
	"time"
)

// Ready-made faults with the bodies and headers GitHub sends.

// SecondaryRateLimit answers route with GitHub's secondary rate limit (403,
// Retry-After) times times.
func SecondaryRateLimit(route string, retryAfter time.Duration, times int) *Fault {
	return &Fault{Route: route, Times: times, Status: http.StatusForbidden,
		Header: map[string]string{"Retry-After": strconv.Itoa(int(retryAfter / time.Second))},
		Body: `{"message":"You have exceeded a secondary rate limit. Please wait a few minutes before you try again.",` +
			`"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-secondary-rate-limits"}`}
}

// PrimaryRateLimit answers route with an exhausted quota (403,
// X-RateLimit-Remaining 0) that resets at reset.
func PrimaryRateLimit(route string, reset time.Time, times int) *Fault {
	return &Fault{Route: route, Times: times, Status: http.StatusForbidden,
		Header: map[string]string{"X-RateLimit-Limit": "5000", "X-RateLimit-Remaining": "0",
			"X-RateLimit-Used": "5000", "X-RateLimit-Reset": strconv.FormatInt(reset.Unix(), 10),
			"X-RateLimit-Resource": "core"},
		Body: `{"message":"API rate limit exceeded for installation.",` +
			`"documentation_url":"https://docs.github.com/rest/overview/rate-limits-for-the-rest-api#about-primary-rate-limits"}`}
}

// ServerError answers route with status (a 5xx) times times.
func ServerError(route string, status, times int) *Fault {
	return &Fault{Route: route, Times: times, Status: status,
		Body: `{"message":"Server Error"}`}
}

// Slow delays every answer of route by d.
func Slow(route string, d time.Duration) *Fault {
	return &Fault{Route: route, Delay: d}
}
