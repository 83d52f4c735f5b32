package model

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"

	ort "github.com/yalue/onnxruntime_go"
)

// Devices. A model runs on the CPU or on a CUDA GPU through ONNX Runtime's
// CUDA execution provider; the choice is made here, once per process and
// device, and nothing outside this package needs to know which one ran
// beyond the line Choose (and Loaded.Device, Checks) gives to print.

var (
	// ErrBadDevice means a device name is not auto, cpu, cuda or cuda:N.
	ErrBadDevice = errors.New("model: unknown device")
	// ErrNoGPU means a session was asked to run on CUDA and cannot: the
	// runtime is a CPU build, a library the CUDA execution provider needs
	// is missing, or there is no usable device.
	ErrNoGPU = errors.New("model: CUDA unavailable")
)

// DeviceKind is where a model runs.
type DeviceKind int

const (
	// DeviceAuto runs on CUDA device 0 when the runtime has the CUDA
	// execution provider, its libraries load and the device is there, and
	// on the CPU otherwise. It is the zero value.
	DeviceAuto DeviceKind = iota
	// DeviceCPU runs on the CPU; no execution provider is tried.
	DeviceCPU
	// DeviceCUDA runs on a CUDA device and fails when it cannot.
	DeviceCUDA
)

// Device names where a model runs. The zero value is auto.
type Device struct {
	Kind DeviceKind
	// ID is the CUDA device ordinal (cuda:N); 0 for auto and cpu.
	ID int
}

// ParseDevice reads a device name: auto (or ""), cpu, cuda (device 0) or
// cuda:N. Case and surrounding space are ignored.
func ParseDevice(s string) (Device, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	switch s {
	case "", "auto":
		return Device{}, nil
	case "cpu":
		return Device{Kind: DeviceCPU}, nil
	case "cuda", "gpu":
		return Device{Kind: DeviceCUDA}, nil
	}
	if n, ok := strings.CutPrefix(s, "cuda:"); ok {
		id, err := strconv.Atoi(n)
		if err == nil && id >= 0 && id < 1<<16 {
			return Device{Kind: DeviceCUDA, ID: id}, nil
		}
	}
	return Device{}, fmt.Errorf("%w %q, want auto, cpu, cuda or cuda:N", ErrBadDevice, s)
}

// String is the device's name as ParseDevice reads it.
func (d Device) String() string {
	switch d.Kind {
	case DeviceCPU:
		return "cpu"
	case DeviceCUDA:
		return "cuda:" + strconv.Itoa(d.ID)
	}
	return "auto"
}

// Choice is the device a session runs on and why.
type Choice struct {
	// Device is cpu or cuda:N, never auto.
	Device Device
	// Asked is the device that was asked for.
	Asked Device
	// Reason says in one clause why auto chose Device: the reason CUDA
	// was passed over when it fell back to the CPU. It is empty for a
	// device asked for by name.
	Reason string
}

// String is the choice as one line of plain data: "cpu (auto: no CUDA
// execution provider in ONNX Runtime 1.24.3)" or "cuda:0 (auto: CUDA
// execution provider ready)".
func (c Choice) String() string {
	if c.Reason == "" {
		return c.Device.String()
	}
	return c.Device.String() + " (" + c.Asked.String() + ": " + c.Reason + ")"
}

// Choose decides where sessions asked to run on d run, with the runtime
// InitRuntime loaded: cpu stays cpu; cuda:N is cuda:N when the CUDA
// execution provider loads and the device takes a session, else an error
// wrapping ErrNoGPU that says why; auto is cuda:0 when it would be, else
// cpu with the reason. The probe (the provider's libraries loaded, a
// one-node session made on the device) runs once per process and device.
func Choose(d Device) (Choice, error) {
	if err := checkRuntime(); err != nil {
		return Choice{}, err
	}
	switch d.Kind {
	case DeviceCPU:
		return Choice{Device: d, Asked: d}, nil
	case DeviceCUDA:
		if err := probeCUDA(d.ID); err != nil {
			return Choice{}, err
		}
		return Choice{Device: d, Asked: d}, nil
	}
	cuda := Device{Kind: DeviceCUDA}
	if err := probeCUDA(0); err != nil {
		return Choice{Device: Device{Kind: DeviceCPU}, Asked: d, Reason: gpuReason(err)}, nil
	}
	return Choice{Device: cuda, Asked: d, Reason: "CUDA execution provider and device 0 ready"}, nil
}

// gpuReason is a probe's error as the clause after "auto: ", without the
// fix: auto running on the CPU is no fault.
func gpuReason(err error) string {
	why, _, _ := strings.Cut(strings.TrimPrefix(Clause(err), ErrNoGPU.Error()+": "), "; ")
	return why
}

// gpuFix is how to get a runtime that runs on CUDA, in terms of the option
// that names it (a front end says its own flag and install step).
const gpuFix = "set Set.ORTLib to a GPU build of ONNX Runtime with the CUDA 12 and cuDNN 9 libraries beside it"

// probes caches probeCUDA's answer per device: the provider's libraries
// load once per process, and a device that is missing stays missing.
var probes struct {
	mu  sync.Mutex
	lib string // the runtime the answers are for
	got map[int]error
}

// probeCUDA checks that sessions can run on CUDA device id: the runtime has
// the CUDA execution provider, its libraries load, and a one-node model
// gets a session on the device (which is where ONNX Runtime finds out
// there is no device or driver).
func probeCUDA(id int) error {
	probes.mu.Lock()
	defer probes.mu.Unlock()
	lib := RuntimePath()
	if probes.got == nil || probes.lib != lib {
		probes.got, probes.lib = map[int]error{}, lib
	}
	if err, ok := probes.got[id]; ok {
		return err
	}
	// ONNX Runtime logs the CUDA failure it then returns as an error;
	// the probe's answer is the error, so the log is kept quiet.
	ort.SetEnvironmentLogLevel(ort.LoggingLevelFatal)
	err := tryCUDA(id, lib)
	ort.SetEnvironmentLogLevel(ort.LoggingLevelError)
	probes.got[id] = err
	return err
}

func tryCUDA(id int, lib string) error {
	opts, err := ort.NewSessionOptions()
	if err != nil {
		return fmt.Errorf("model: session options: %w", err)
	}
	defer opts.Destroy()
	if err := opts.SetIntraOpNumThreads(1); err != nil {
		return fmt.Errorf("model: session options: %w", err)
	}
	if err := appendCUDA(opts, id, lib); err != nil {
		return err
	}
	s, err := ort.NewDynamicAdvancedSessionWithONNXData(probeModel, []string{"x"}, []string{"y"}, opts)
	if err != nil {
		return noDevice(id, err)
	}
	s.Destroy()
	return nil
}

// appendCUDA adds the CUDA execution provider for device id to opts.
// Setting its options loads the provider library
// (libonnxruntime_providers_cuda.so, beside the runtime) and what it links
// (cuDNN, cuBLAS, the CUDA runtime), and asks the driver how many devices
// there are; the error says which of those failed.
func appendCUDA(opts *ort.SessionOptions, id int, lib string) error {
	co, err := ort.NewCUDAProviderOptions()
	if err == nil {
		defer co.Destroy()
		err = co.Update(map[string]string{"device_id": strconv.Itoa(id)})
	}
	if err == nil {
		err = opts.AppendExecutionProviderCUDA(co)
	}
	if err == nil {
		return nil
	}
	msg := oneLine(err)
	missing := missingLib(err)
	switch {
	case strings.Contains(msg, "not enabled in this build"),
		missing == "libonnxruntime_providers_shared.so", missing == "libonnxruntime_providers_cuda.so":
		return fmt.Errorf("%w: ONNX Runtime %s at %s has no CUDA execution provider (a CPU build); %s",
			ErrNoGPU, ort.GetVersion(), lib, gpuFix)
	case missing != "":
		return fmt.Errorf("%w: %s is missing, so the CUDA execution provider does not load; %s",
			ErrNoGPU, missing, gpuFix)
	case strings.Contains(msg, "CUDA failure"):
		return noDevice(id, err)
	}
	return fmt.Errorf("%w: the CUDA execution provider does not load (%s); %s", ErrNoGPU, clip(msg, 120), gpuFix)
}

// noDevice is the error for a CUDA device the driver does not give.
func noDevice(id int, err error) error {
	return fmt.Errorf("%w: no CUDA device %d (%s); check the driver with nvidia-smi, or run on the CPU (Set.Device cpu)",
		ErrNoGPU, id, clip(cudaFailure(err), 90))
}

// sharedObject finds a library the dynamic loader could not open in its
// message ("libcudnn.so.9: cannot open shared object file").
var sharedObject = regexp.MustCompile(`([A-Za-z0-9_.+-]+\.so[0-9.]*): cannot open shared object file`)

// missingLib names the library whose absence err reports, "" for none.
// The loader names the innermost missing one last.
func missingLib(err error) string {
	m := sharedObject.FindAllStringSubmatch(err.Error(), -1)
	if len(m) == 0 {
		return ""
	}
	return m[len(m)-1][1]
}

// cudaFailure is the CUDA error in ONNX Runtime's message, whose first
// lines are a stack of file names: "CUDA failure 100: no CUDA-capable
// device is detected".
func cudaFailure(err error) string {
	msg := oneLine(err)
	if i := strings.Index(msg, "CUDA failure"); i >= 0 {
		msg = msg[i:]
		if j := strings.Index(msg, " ; GPU="); j > 0 {
			msg = msg[:j]
		}
	}
	return msg
}

func oneLine(err error) string {
	return strings.Join(strings.Fields(err.Error()), " ")
}

// probeModel is a one-node ONNX model (y = Identity(x), x float[1], opset
// 13) made by onnx.helper: creating a session for it with the CUDA
// execution provider appended is where ONNX Runtime opens the device.
var probeModel = []byte{
	0x08, 0x08, 0x12, 0x00, 0x3a, 0x3b, 0x0a, 0x10, 0x0a, 0x01, 0x78, 0x12, 0x01, 0x79, 0x22, 0x08,
	0x49, 0x64, 0x65, 0x6e, 0x74, 0x69, 0x74, 0x79, 0x12, 0x05, 0x70, 0x72, 0x6f, 0x62, 0x65, 0x5a,
	0x0f, 0x0a, 0x01, 0x78, 0x12, 0x0a, 0x0a, 0x08, 0x08, 0x01, 0x12, 0x04, 0x0a, 0x02, 0x08, 0x01,
	0x62, 0x0f, 0x0a, 0x01, 0x79, 0x12, 0x0a, 0x0a, 0x08, 0x08, 0x01, 0x12, 0x04, 0x0a, 0x02, 0x08,
	0x01, 0x42, 0x04, 0x0a, 0x00, 0x10, 0x0d,
}
