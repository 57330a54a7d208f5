// Command xembdump embeds a JSON list of [id, text] pairs with the local
// embedder and writes the vectors as JSON, for comparing embedders outside
// the index.
package main

import (
	"context"
	"encoding/json"
	"log"
	"os"

	"github.com/gitmemory/gitmemory/vectors"
)

func main() {
	var in [][2]string
	b, err := os.ReadFile(os.Args[1])
	if err != nil {
		log.Fatal(err)
	}
	if err := json.Unmarshal(b, &in); err != nil {
		log.Fatal(err)
	}
	texts := make([]string, len(in))
	for i, p := range in {
		texts[i] = p[1]
	}
	vs, err := vectors.NewLocal(384).Embed(context.Background(), texts)
	if err != nil {
		log.Fatal(err)
	}
	if err := json.NewEncoder(os.Stdout).Encode(vs); err != nil {
		log.Fatal(err)
	}
}
