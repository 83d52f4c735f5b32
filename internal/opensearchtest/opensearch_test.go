package opensearchtest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"testing"
	"time"
)

// TestClusterStartsAndAnswers starts one real node, indexes three
// documents with a text field and a lucene HNSW vector, checks that BM25
// and k-NN each rank the expected document first, then stops the node and
// checks that its port no longer answers.
func TestClusterStartsAndAnswers(t *testing.T) {
	c := StartCluster(t, 1)
	url := c.URL
	client := &http.Client{Timeout: 2 * time.Minute} // a last guard: the machine may be busy

	do(t, client, "PUT", url+"/notes", map[string]any{
		"settings": map[string]any{
			"index.knn":          true,
			"number_of_shards":   1,
			"number_of_replicas": 0,
		},
		"mappings": map[string]any{
			"properties": map[string]any{
				"text": map[string]any{"type": "text"},
				"vec": map[string]any{
					"type":      "knn_vector",
					"dimension": 4,
					"method": map[string]any{
						"name":       "hnsw",
						"engine":     "lucene",
						"space_type": "cosinesimil",
					},
				},
			},
		},
	}, nil)

	docs := []struct {
		id   string
		text string
		vec  []float32
	}{
		{"a", "the braid engine fuses keyword and vector rankings", []float32{1, 0, 0, 0}},
		{"b", "a river delta braids into many channels", []float32{0, 1, 0, 0}},
		{"c", "opensearch scales search across several nodes", []float32{0, 0, 1, 0.1}},
	}
	for _, d := range docs {
		do(t, client, "PUT", url+"/notes/_doc/"+d.id+"?refresh=true",
			map[string]any{"text": d.text, "vec": d.vec}, nil)
	}

	var res searchResponse
	do(t, client, "POST", url+"/notes/_search", map[string]any{
		"query": map[string]any{"match": map[string]any{"text": "river channels"}},
	}, &res)
	if got := res.firstID(); got != "b" {
		t.Errorf("match query: first hit %q, want b (%d hits)", got, len(res.Hits.Hits))
	}

	res = searchResponse{}
	do(t, client, "POST", url+"/notes/_search", map[string]any{
		"size": 3,
		"query": map[string]any{"knn": map[string]any{
			"vec": map[string]any{"vector": []float32{0.1, 0, 0.9, 0.2}, "k": 3},
		}},
	}, &res)
	if got := res.firstID(); got != "c" {
		t.Errorf("knn query: first hit %q, want c (%d hits)", got, len(res.Hits.Hits))
	}

	c.Stop()
	if resp, err := client.Get(url); err == nil {
		resp.Body.Close()
		t.Errorf("after stop, %s still answers: %s", url, resp.Status)
	}
}

type searchResponse struct {
	Hits struct {
		Hits []struct {
			ID    string  `json:"_id"`
			Score float64 `json:"_score"`
		} `json:"hits"`
	} `json:"hits"`
}

func (r searchResponse) firstID() string {
	if len(r.Hits.Hits) == 0 {
		return ""
	}
	return r.Hits.Hits[0].ID
}

// do sends body as JSON and decodes a 2xx answer into out (when not nil);
// anything else fails the test.
func do(t *testing.T, client *http.Client, method, url string, body, out any) {
	t.Helper()
	b, err := json.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s %s: %s\n%s", method, url, resp.Status, data)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			t.Fatalf("%s %s: decoding %s: %v", method, url, data, err)
		}
	}
}

// TestTwoNodesFormOneCluster starts two nodes (seed hosts rather than
// single-node discovery) and checks that each answers for a cluster of two.
func TestTwoNodesFormOneCluster(t *testing.T) {
	c := StartCluster(t, 2)
	if len(c.URLs) != 2 {
		t.Fatalf("URLs %v, want 2", c.URLs)
	}
	client := &http.Client{Timeout: 2 * time.Minute} // a last guard: the machine may be busy
	for _, u := range c.URLs {
		var h struct {
			Status        string `json:"status"`
			NumberOfNodes int    `json:"number_of_nodes"`
		}
		resp, err := client.Get(u + "/_cluster/health")
		if err != nil {
			t.Fatal(err)
		}
		err = json.NewDecoder(resp.Body).Decode(&h)
		resp.Body.Close()
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		if h.Status != "green" || h.NumberOfNodes != 2 {
			t.Errorf("%s: health %s with %d nodes, want green with 2", u, h.Status, h.NumberOfNodes)
		}
	}
}
