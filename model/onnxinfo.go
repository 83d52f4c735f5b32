package model

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	ort "github.com/yalue/onnxruntime_go"
)

// readIO reads the graph inputs and outputs of an ONNX file from its
// protobuf directly, seeking past the weights: a few milliseconds, where
// asking ONNX Runtime means loading the whole model once more (300 ms for
// bge-small fp32). Only what session needs is read: names, tensor element
// types and dimensions (-1 for symbolic ones).
func readIO(path string) (ins, outs []ort.InputOutputInfo, err error) {
	// GraphProto: 11 input, 12 output (ValueInfoProto).
	err = walkGraph(path, func(r *pbReader, field int, wire uint64) (bool, error) {
		if (field != 11 && field != 12) || wire != 2 {
			return false, nil
		}
		b, err := r.bytes()
		if err != nil {
			return true, err
		}
		info, err := valueInfo(b)
		if err != nil {
			return true, err
		}
		if field == 11 {
			ins = append(ins, info)
		} else {
			outs = append(outs, info)
		}
		return true, nil
	})
	return ins, outs, err
}

// walkGraph reads the graph (ModelProto field 7) of an ONNX file and hands
// each of its fields to fn, which reads the field and says so, or leaves it
// to be skipped (returns false): what fn does not want, large weights
// above all, is seeked past, never read.
func walkGraph(path string, fn func(r *pbReader, field int, wire uint64) (bool, error)) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return err
	}
	r := &pbReader{f: f, br: bufio.NewReaderSize(f, 1<<16)}
	for r.off < fi.Size() {
		field, wire, err := r.tag()
		if err != nil {
			return err
		}
		if field != 7 || wire != 2 {
			if err := r.skip(wire); err != nil {
				return err
			}
			continue
		}
		n, err := r.varint()
		if err != nil {
			return err
		}
		for end := r.off + int64(n); r.off < end; {
			field, wire, err := r.tag()
			if err != nil {
				return err
			}
			read, err := fn(r, field, wire)
			if err != nil {
				return err
			}
			if !read {
				if err := r.skip(wire); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return errors.New("no graph in the file")
}

// valueInfo decodes a ValueInfoProto: 1 name, 2 type → 1 tensor_type →
// 1 elem_type, 2 shape → 1 dim → 1 dim_value | 2 dim_param.
func valueInfo(b []byte) (ort.InputOutputInfo, error) {
	info := ort.InputOutputInfo{OrtValueType: ort.ONNXTypeUnknown}
	err := fields(b, func(f int, v uint64, sub []byte) error {
		switch f {
		case 1:
			info.Name = string(sub)
		case 2:
			return fields(sub, func(f int, _ uint64, tensor []byte) error {
				if f != 1 {
					return nil // sequence, map, optional: left unknown
				}
				info.OrtValueType = ort.ONNXTypeTensor
				return fields(tensor, func(f int, v uint64, shape []byte) error {
					switch f {
					case 1:
						info.DataType = ort.TensorElementDataType(v)
					case 2:
						info.Dimensions = ort.Shape{}
						return fields(shape, func(f int, _ uint64, dim []byte) error {
							if f != 1 {
								return nil
							}
							d := int64(-1)
							err := fields(dim, func(f int, v uint64, _ []byte) error {
								if f == 1 {
									d = int64(v)
								}
								return nil
							})
							info.Dimensions = append(info.Dimensions, d)
							return err
						})
					}
					return nil
				})
			})
		}
		return nil
	})
	return info, err
}

// fields walks a protobuf message held in memory, calling fn with each
// field's number and its varint value or bytes.
func fields(b []byte, fn func(field int, v uint64, sub []byte) error) error {
	for len(b) > 0 {
		key, n := binary.Uvarint(b)
		if n <= 0 {
			return errors.New("bad field key")
		}
		b = b[n:]
		field, wire := int(key>>3), key&7
		var v uint64
		var sub []byte
		switch wire {
		case 0:
			if v, n = binary.Uvarint(b); n <= 0 {
				return errors.New("bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return io.ErrUnexpectedEOF
			}
			b = b[8:]
		case 2:
			l, n := binary.Uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return io.ErrUnexpectedEOF
			}
			sub, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return io.ErrUnexpectedEOF
			}
			b = b[4:]
		default:
			return fmt.Errorf("wire type %d", wire)
		}
		if err := fn(field, v, sub); err != nil {
			return err
		}
	}
	return nil
}

// pbReader reads protobuf fields from a file, seeking past long ones.
type pbReader struct {
	f   *os.File
	br  *bufio.Reader
	off int64
}

func (r *pbReader) varint() (uint64, error) {
	v, err := binary.ReadUvarint(r)
	return v, err
}

func (r *pbReader) ReadByte() (byte, error) {
	b, err := r.br.ReadByte()
	if err == nil {
		r.off++
	}
	return b, err
}

func (r *pbReader) tag() (field int, wire uint64, err error) {
	k, err := r.varint()
	return int(k >> 3), k & 7, err
}

func (r *pbReader) bytes() ([]byte, error) {
	n, err := r.varint()
	if err != nil {
		return nil, err
	}
	if n > 1<<20 {
		return nil, fmt.Errorf("field of %d bytes where a small one was expected", n)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r.br, b); err != nil {
		return nil, err
	}
	r.off += int64(n)
	return b, nil
}

func (r *pbReader) skip(wire uint64) error {
	var n int64
	switch wire {
	case 0:
		_, err := r.varint()
		return err
	case 1:
		n = 8
	case 2:
		l, err := r.varint()
		if err != nil {
			return err
		}
		n = int64(l)
	case 5:
		n = 4
	default:
		return fmt.Errorf("wire type %d", wire)
	}
	if n <= int64(r.br.Buffered()) {
		_, err := r.br.Discard(int(n))
		r.off += n
		return err
	}
	r.off += n
	if _, err := r.f.Seek(r.off, io.SeekStart); err != nil {
		return err
	}
	r.br.Reset(r.f)
	return nil
}

// weight is one initializer of an ONNX graph (a stored tensor): its name
// and shape.
type weight struct {
	name string
	dims []int64
}

// node is what FLOPsPerToken needs of a graph node.
type node struct {
	op              string
	inputs, outputs []string
}

// graphWeights returns the initializers and nodes of an ONNX file, read
// like readIO: the tensors' data is skipped, not read.
func graphWeights(path string) (ws []weight, ns []node, err error) {
	// GraphProto: 1 node (NodeProto: 1 input, 2 output, 4 op_type),
	// 5 initializer (TensorProto: 1 dims, 8 name).
	err = walkGraph(path, func(r *pbReader, field int, wire uint64) (bool, error) {
		switch {
		case field == 1 && wire == 2:
			b, err := r.bytes()
			if err != nil {
				return true, err
			}
			var nd node
			err = fields(b, func(f int, _ uint64, sub []byte) error {
				switch f {
				case 1:
					nd.inputs = append(nd.inputs, string(sub))
				case 2:
					nd.outputs = append(nd.outputs, string(sub))
				case 4:
					nd.op = string(sub)
				}
				return nil
			})
			ns = append(ns, nd)
			return true, err
		case field == 5 && wire == 2:
			w, err := r.tensorHeader()
			ws = append(ws, w)
			return true, err
		}
		return false, nil
	})
	return ws, ns, err
}

// tensorHeader reads a TensorProto's name and dims and skips its data.
func (r *pbReader) tensorHeader() (weight, error) {
	var w weight
	l, err := r.varint()
	if err != nil {
		return w, err
	}
	for end := r.off + int64(l); r.off < end; {
		field, wire, err := r.tag()
		if err != nil {
			return w, err
		}
		switch {
		case field == 1 && wire == 0:
			d, err := r.varint()
			if err != nil {
				return w, err
			}
			w.dims = append(w.dims, int64(d))
		case (field == 1 || field == 8) && wire == 2:
			b, err := r.bytes()
			if err != nil {
				return w, err
			}
			if field == 8 {
				w.name = string(b)
				continue
			}
			for len(b) > 0 { // packed dims
				d, k := binary.Uvarint(b)
				if k <= 0 {
					return w, errors.New("bad tensor dims")
				}
				w.dims, b = append(w.dims, int64(d)), b[k:]
			}
		default:
			if err := r.skip(wire); err != nil {
				return w, err
			}
		}
	}
	return w, nil
}

// FLOPsPerToken estimates the arithmetic one token costs a pass through
// the model at path: two operations (a multiply and an add) for each
// element of every stored weight matrix a matrix product takes, directly
// or through a DequantizeLinear (as quantized models store them).
// Embedding tables are looked up, not multiplied, and attention's own
// products, which grow with the sequence, are not counted, so at chunk
// lengths the estimate is a few percent low (Cost counts them).
func FLOPsPerToken(path string) (int64, error) {
	c, err := ReadCost(path)
	return c.PerToken, err
}

// Cost is the arithmetic of a pass through a transformer: PerToken
// (FLOPsPerToken) for each token, and for attention's own two products
// (queries by keys, then the attention weights by values) 2 × 2 × Hidden
// FLOPs per layer for each pair of tokens.
type Cost struct {
	PerToken int64
	// Layers are the attention layers (Softmax nodes, or fused Attention
	// nodes) and Hidden their width (the embedding tables'); zero when
	// the graph shows neither, and the attention term is then left out.
	Layers, Hidden int
}

// FLOPs is what one sequence of n tokens costs.
func (c Cost) FLOPs(n int) float64 {
	t := float64(n)
	return t*float64(c.PerToken) + 4*float64(c.Layers)*float64(c.Hidden)*t*t
}

// ReadCost estimates the Cost of the model at path from its graph,
// reading no weights.
func ReadCost(path string) (Cost, error) {
	ws, ns, err := graphWeights(path)
	if err != nil {
		return Cost{}, fmt.Errorf("model: read the weights of %s: %w", path, err)
	}
	size := map[string]int64{}
	width := map[string]int{}
	for _, w := range ws {
		if len(w.dims) >= 2 {
			n := int64(1)
			for _, d := range w.dims {
				n *= d
			}
			size[w.name] = n
			width[w.name] = int(w.dims[len(w.dims)-1])
		}
	}
	stored := map[string]string{} // a value → the initializer it dequantizes
	for _, n := range ns {
		if n.op == "DequantizeLinear" && len(n.inputs) > 0 && len(n.outputs) > 0 {
			stored[n.outputs[0]] = n.inputs[0]
		}
	}
	weight := func(in string) string {
		if s, ok := stored[in]; ok {
			return s
		}
		return in
	}
	var c Cost
	counted := map[string]bool{}
	var sum, table int64
	for _, n := range ns {
		switch n.op {
		case "MatMul", "Gemm", "MatMulInteger", "FusedMatMul", "MatMulIntegerToFloat", "DynamicQuantizeMatMul", "QLinearMatMul", "MatMulNBits":
			for _, in := range n.inputs {
				if in = weight(in); size[in] > 0 && !counted[in] {
					counted[in] = true
					sum += size[in]
				}
			}
		case "Softmax", "Attention", "MultiHeadAttention":
			c.Layers++
		case "Gather": // an embedding table: the largest is the words', as wide as the model
			if len(n.inputs) > 0 && size[weight(n.inputs[0])] > table {
				table, c.Hidden = size[weight(n.inputs[0])], width[weight(n.inputs[0])]
			}
		}
	}
	c.PerToken = 2 * sum
	return c, nil
}
