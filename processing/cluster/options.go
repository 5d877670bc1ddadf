package cluster

import "fmt"

// CheckOptions checks the sbatch options of a submission: a partition,
// generic resources ("gpu:1") and a time limit ("2:00:00"), each empty or
// made only of the characters SLURM uses in them, so that it can be
// written into an #SBATCH line as it is and cannot start another option.
func CheckOptions(partition, gres, time string) error {
	for _, o := range [][2]string{{"partition", partition}, {"gres", gres}, {"time", time}} {
		if o[1] != "" && !safeOption(o[1]) {
			return fmt.Errorf("--%s %q: unexpected characters for a SLURM %s", o[0], o[1], o[0])
		}
	}
	return nil
}
