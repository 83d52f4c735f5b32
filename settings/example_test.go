package settings_test

import (
	"errors"
	"fmt"

	"github.com/braidsearch/braid/settings"
)

func ExampleValues_Set() {
	v := &settings.Values{}
	if err := v.Set("fusion", "rrf"); err != nil {
		fmt.Println(err)
	}
	err := v.Set("limit", "5000")
	var bad *settings.RangeError
	fmt.Println(errors.As(err, &bad), err)
	err = v.Set("colour", "blue")
	fmt.Println(errors.Is(err, settings.ErrUnknown))
	for _, s := range v.List(settings.DefaultRerankBudget) {
		if s.Name == "fusion" || s.Name == "limit" {
			fmt.Printf("%s=%s set=%v default=%s\n", s.Name, s.Value, s.Set, s.Default)
		}
	}
	// Output:
	// true limit "5000" is out of range; want a whole number from 1 to 1000
	// true
	// fusion=rrf set=true default=linear
	// limit=10 set=false default=10
}
