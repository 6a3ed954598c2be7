# The model family's experiments.
#   make kq-staircase   merged against separate keys and queries from a small
#                       initialization (examples/kq_staircase.sh): the loss
#                       curves, their numbers and the plateaus counted, in
#                       build/kq-staircase/ (about 30 s on one core)
.PHONY: kq-staircase
kq-staircase: $(BUILD)/linattn
	sh examples/kq_staircase.sh $(BUILD)/linattn $(BUILD)/kq-staircase
