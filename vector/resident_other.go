//go:build !linux

package vector

func mapResident([]byte, int, int) {}
