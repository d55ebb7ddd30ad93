// csrc/tf/kvec_ops.cc: kvec's TensorFlow op library, the layer's tokenizer as a graph op.
//
//   KvecEncode(texts: string[n], spec: string attr) -> values: int64[m], row_splits: int64[n + 1]
//       The ids of each UTF-8 text, as kvec.pipeline.Pipeline gives them, by the pipeline described in
//       `spec` (kvec/native_spec.py writes it; csrc/core/spec_encoder.h states it). Text i has ids
//       values[row_splits[i] : row_splits[i + 1]].
//
// The kernel holds no rule of its own: it checks the description once, when the op is built, and runs
// the core's encoder (csrc/core/) over the texts, the code kvec's Python extensions run. The
// description is an attribute, so a SavedModel holds the whole tokenizer in its graph.
#include <cstring>
#include <string>

#include "spec_encoder.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"

namespace kvec {

using ::tensorflow::DEVICE_CPU;
using ::tensorflow::OpKernel;
using ::tensorflow::OpKernelConstruction;
using ::tensorflow::OpKernelContext;
using ::tensorflow::Tensor;
using ::tensorflow::TensorShape;
using ::tensorflow::TensorShapeUtils;
using ::tensorflow::shape_inference::DimensionHandle;
using ::tensorflow::shape_inference::InferenceContext;
using ::tensorflow::shape_inference::ShapeHandle;

REGISTER_OP("KvecEncode")
    .Input("texts: string")
    .Attr("spec: string")
    .Output("values: int64")
    .Output("row_splits: int64")
    .SetShapeFn([](InferenceContext* c) {
      ShapeHandle texts;
      TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &texts));
      DimensionHandle splits;
      TF_RETURN_IF_ERROR(c->Add(c->Dim(texts, 0), 1, &splits));
      c->set_output(0, c->Vector(c->UnknownDim()));
      c->set_output(1, c->Vector(splits));
      return absl::OkStatus();
    })
    .Doc("The ids of each UTF-8 text by the kvec pipeline described in spec, as a ragged row.");

class KvecEncodeOp : public OpKernel {
 public:
  explicit KvecEncodeOp(OpKernelConstruction* context) : OpKernel(context) {
    std::string spec;
    OP_REQUIRES_OK(context, context->GetAttr("spec", &spec));
    const char* error =
        spec_encoder_init(&encoder_, reinterpret_cast<const unsigned char*>(spec.data()), spec.size());
    OP_REQUIRES(context, error == nullptr,
                absl::InvalidArgumentError(std::string("kvec: the pipeline description is wrong: ") + error));
    ready_ = true;
  }

  ~KvecEncodeOp() override {
    if (ready_) spec_encoder_free(&encoder_);
  }

  // Compute may run on several threads at once: the encoder is only read, and each call has its own
  // scratch and output.
  void Compute(OpKernelContext* context) override {
    const Tensor& texts = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(texts.shape()),
                absl::InvalidArgumentError("kvec: texts must be a vector of strings"));
    auto flat = texts.flat<tensorflow::tstring>();
    const int64_t n = flat.size();
    Tensor* row_splits = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({n + 1}), &row_splits));
    auto splits = row_splits->flat<int64_t>();
    splits(0) = 0;
    Int64s values = {nullptr, 0, 0};
    SpecScratch scratch;
    std::memset(&scratch, 0, sizeof(scratch));
    int status = 0;
    int64_t failed = 0;
    for (int64_t i = 0; i < n && status == 0; i++) {
      const tensorflow::tstring& text = flat(i);
      status = spec_encode(&encoder_, reinterpret_cast<const unsigned char*>(text.data()), text.size(), &values,
                           &scratch);
      splits(i + 1) = values.length;
      failed = i;
    }
    spec_scratch_free(&scratch);
    if (status != 0) {
      int64s_free(&values);
      OP_REQUIRES(context, status > 0, absl::ResourceExhaustedError("kvec: out of memory encoding texts"));
      OP_REQUIRES(context, false,
                  absl::InvalidArgumentError("kvec: text " + std::to_string(failed) +
                                             " has a word that matches no piece, and the vocabulary has no "
                                             "unknown token"));
    }
    Tensor* output = nullptr;
    absl::Status allocated = context->allocate_output(0, TensorShape({values.length}), &output);
    if (allocated.ok() && values.length) {
      std::memcpy(output->flat<int64_t>().data(), values.data, sizeof(int64_t) * values.length);
    }
    int64s_free(&values);
    OP_REQUIRES_OK(context, allocated);
  }

 private:
  SpecEncoder encoder_;
  bool ready_ = false;
};

REGISTER_KERNEL_BUILDER(Name("KvecEncode").Device(DEVICE_CPU), KvecEncodeOp);

}  // namespace kvec
