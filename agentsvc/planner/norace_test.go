//go:build !race

package planner

// raceDetector: see race_test.go.
const raceDetector = false
