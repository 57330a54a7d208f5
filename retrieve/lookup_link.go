package retrieve

import (
	"net/url"
	"strings"
)

// CommitLink is a usable reference to a commit: its web page when remote
// is a forge's https, ssh or scp-style URL (GitHub, Gitea and most others
// serve /commit/<hash>, GitLab /-/commit/<hash>, Bitbucket
// /commits/<hash>), else the hash itself. Credentials in the remote never
// reach the link.
func CommitLink(remote, hash string) string {
	host, path := forgeRepo(remote)
	if host == "" {
		return hash
	}
	base := "https://" + host + "/" + path
	switch {
	case host == "bitbucket.org":
		return base + "/commits/" + hash
	case strings.Contains(host, "gitlab"):
		return base + "/-/commit/" + hash
	}
	return base + "/commit/" + hash
}

// forgeRepo splits a remote URL into the web host and the repository path,
// or returns "" for a local path or a file URL.
func forgeRepo(remote string) (host, path string) {
	remote = strings.TrimSpace(remote)
	if remote == "" {
		return "", ""
	}
	if i := strings.Index(remote, "://"); i < 0 {
		// scp-style [user@]host:path; a local path has no colon before its
		// first slash.
		// A one-letter host is a Windows drive.
		colon := strings.Index(remote, ":")
		if colon <= 1 || strings.Contains(remote[:colon], "/") {
			return "", ""
		}
		host = remote[:colon]
		if at := strings.LastIndex(host, "@"); at >= 0 {
			host = host[at+1:]
		}
		path = remote[colon+1:]
	} else {
		u, err := url.Parse(remote)
		if err != nil {
			return "", ""
		}
		switch u.Scheme {
		case "http", "https":
			host = u.Host // a web port is kept
		case "ssh", "git", "git+ssh", "ssh+git":
			host = u.Hostname() // an ssh port is not the web's
		default:
			return "", ""
		}
		path = u.Path
	}
	path = strings.TrimSuffix(strings.Trim(path, "/"), ".git")
	if host == "" || path == "" || strings.ContainsAny(host, " @") {
		return "", ""
	}
	return strings.ToLower(host), path
}
