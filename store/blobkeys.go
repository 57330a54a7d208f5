package store

import (
	"fmt"
	"strconv"
	"strings"
)

// A blob belongs to a commit: its row id is the commit's id shifted left
// by 32 bits plus a slot, 0 for the message, 1 for the original bytes of
// a message that was not UTF-8, 2 + seq for the diff of the commit's
// seq-th file change. The id is the table's own key: no key text per row
// (each named the commit's hash again) and no index over it, which were
// 27 MB of git/git's 250,000 blobs. A commit's blobs are one range of ids,
// written in order. The string keys (MessageKey, DiffKey) stay the API.
const (
	slotMessage    = 0
	slotRawMessage = 1
	slotDiff       = 2
)

func blobID(commit, slot int64) int64 { return commit<<32 + slot }

// MessageKey names the blob of a commit's full message.
func MessageKey(hash string) string { return "msg:" + hash }

// RawMessageKey names the original bytes of a message that was not UTF-8.
func RawMessageKey(hash string) string { return "rawmsg:" + hash }

// DiffKey names the unified diff text of a commit's seq-th file change.
func DiffKey(hash string, seq int) string { return fmt.Sprintf("diff:%s:%d", hash, seq) }

// parseKey splits a blob key into its commit's hash and its slot.
func parseKey(key string) (hash string, slot int64, err error) {
	kind, rest, _ := strings.Cut(key, ":")
	switch kind {
	case "msg":
		return rest, slotMessage, nil
	case "rawmsg":
		return rest, slotRawMessage, nil
	case "diff":
		if i := strings.LastIndexByte(rest, ':'); i > 0 {
			seq, err := strconv.ParseUint(rest[i+1:], 10, 31)
			if err == nil {
				return rest[:i], slotDiff + int64(seq), nil
			}
		}
	}
	return "", 0, fmt.Errorf("blob key %q names no message or diff (msg:HASH, rawmsg:HASH, diff:HASH:SEQ)", key)
}

// slotKey is the key of a commit's blob in a slot.
func slotKey(hash string, slot int64) string {
	switch slot {
	case slotMessage:
		return MessageKey(hash)
	case slotRawMessage:
		return RawMessageKey(hash)
	}
	return DiffKey(hash, int(slot-slotDiff))
}
