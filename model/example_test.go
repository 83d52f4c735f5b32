package model_test

import (
	"context"
	"fmt"
	"log"

	"github.com/braidsearch/braid/model"
)

// Load the ONNX Runtime once per process, then a model directory that
// `braid models pull` filled.
func ExampleLoadEmbedder() {
	lib, err := model.FindRuntime("") // or the --ort-lib flag's value
	if err != nil {
		log.Fatal(err) // says where it looked and how to install the library
	}
	if err := model.InitRuntime(lib); err != nil {
		log.Fatal(err)
	}
	spec := model.Spec{
		Name: "BAAI/bge-small-en-v1.5", Kind: model.KindEmbedder, Pooling: model.PoolCLS, Dim: 384, MaxLen: 512,
		QueryPrefix: "Represent this sentence for searching relevant passages: ",
	}
	e, err := model.LoadEmbedder(context.Background(), "/path/to/models/BAAI--bge-small-en-v1.5", spec, model.Config{Threads: 2})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()
	vecs, err := e.Embed(context.Background(), []string{"how do plugins load"}, true)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(len(vecs[0]) == e.Dim())
}
