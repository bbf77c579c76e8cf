package jsonerr

import (
	"encoding/json"
	"testing"
)

func TestDescribe(t *testing.T) {
	type page struct {
		URL string `json:"url"`
	}
	type params struct {
		Text  string `json:"text"`
		Seq   *int64 `json:"lastSeq"`
		Page  *page  `json:"page"`
		Items []int  `json:"items"`
	}
	for _, tc := range []struct{ path, in, want string }{
		{"", `{"text":5}`, "text must be a string, not a number"},
		{"", `{"lastSeq":"7"}`, "lastSeq must be a number, not a string"},
		{"", `{"lastSeq":1.5}`, "lastSeq must be a whole number from -9223372036854775808 to 9223372036854775807, not 1.5"},
		{"", `{"lastSeq":1e308}`, "lastSeq must be a whole number from -9223372036854775808 to 9223372036854775807, not 1e308"},
		{"", `{"page":{"url":true}}`, "page.url must be a string, not a boolean"},
		{"", `{"page":[]}`, "page must be an object, not an array"},
		{"", `{"items":{}}`, "items must be an array, not an object"},
		{"", `[]`, "the value must be an object, not an array"},
		{"params", `"x"`, "params must be an object, not a string"},
	} {
		var p params
		err := json.Unmarshal([]byte(tc.in), &p)
		if err == nil {
			t.Fatalf("%s: no error", tc.in)
		}
		if got := Describe(tc.path, err); got != tc.want {
			t.Errorf("Describe(%q, %s) = %q, want %q", tc.path, tc.in, got, tc.want)
		}
	}
}
