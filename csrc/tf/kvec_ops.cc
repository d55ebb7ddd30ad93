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
#include <algorithm>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include "spec_encoder.h"
#include "tensorflow/core/framework/op.h"
#include "tensorflow/core/framework/op_kernel.h"
#include "tensorflow/core/framework/shape_inference.h"
#include "tensorflow/core/platform/threadpool.h"

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
using SchedulingParams = ::tensorflow::thread::ThreadPool::SchedulingParams;

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
    for (SpecScratch* scratch : idle_) {
      spec_scratch_free(scratch);
      delete scratch;
    }
    if (ready_) spec_encoder_free(&encoder_);
  }

  // Compute may run on several threads at once: the encoder is only read, and each part of a batch
  // takes a scratch of its own, which it gives back with its word cache for later calls. A batch is cut
  // into parts of at least kTextsPerPart texts, encoded on TensorFlow's intra-op threads.
  void Compute(OpKernelContext* context) override {
    const Tensor& texts = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(texts.shape()),
                absl::InvalidArgumentError("kvec: texts must be a vector of strings"));
    auto flat = texts.flat<tensorflow::tstring>();
    const int64_t n = flat.size();
    Tensor* row_splits = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({n + 1}), &row_splits));
    int64_t* splits = row_splits->flat<int64_t>().data();
    splits[0] = 0;

    auto* workers = context->device()->tensorflow_cpu_worker_threads();
    const int64_t n_parts = std::max<int64_t>(1, std::min<int64_t>(workers->num_threads, n / kTextsPerPart));
    std::vector<Part> parts(n_parts);
    auto encode_parts = [&](int64_t first, int64_t last) {
      for (int64_t p = first; p < last; p++) {
        EncodePart(flat, n * p / n_parts, n * (p + 1) / n_parts, splits, &parts[p]);
      }
    };
    if (n_parts == 1) encode_parts(0, 1);
    else workers->workers->ParallelFor(n_parts, SchedulingParams::Fixed(1), encode_parts);

    int64_t total = 0;
    const Part* failed = nullptr;
    for (int64_t p = 0; p < n_parts; p++) {
      if (parts[p].status != 0 && failed == nullptr) failed = &parts[p];
      total += parts[p].values.length;
    }
    Tensor* output = nullptr;
    absl::Status status = failed ? Failure(*failed) : context->allocate_output(0, TensorShape({total}), &output);
    if (status.ok()) {
      int64_t* out = output->flat<int64_t>().data();
      int64_t offset = 0;
      for (int64_t p = 0; p < n_parts; p++) {
        const Int64s& values = parts[p].values;
        if (values.length) std::memcpy(out + offset, values.data, sizeof(int64_t) * values.length);
        for (int64_t i = n * p / n_parts; i < n * (p + 1) / n_parts; i++) splits[i + 1] += offset;
        offset += values.length;
      }
    }
    for (Part& part : parts) int64s_free(&part.values);
    OP_REQUIRES_OK(context, status);
  }

 private:
  static constexpr int64_t kTextsPerPart = 64;

  struct Part {
    Int64s values = {nullptr, 0, 0};
    int status = 0;
    int64_t failed_text = 0;
  };

  // Texts [first, last) into part->values; splits[i + 1] holds each text's end within the part.
  void EncodePart(const tensorflow::TTypes<tensorflow::tstring>::ConstFlat& flat, int64_t first, int64_t last,
                  int64_t* splits, Part* part) {
    SpecScratch* scratch = TakeScratch();
    for (int64_t i = first; i < last && part->status == 0; i++) {
      const tensorflow::tstring& text = flat(i);
      part->status = spec_encode(&encoder_, reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                 &part->values, scratch);
      splits[i + 1] = part->values.length;
      part->failed_text = i;
    }
    GiveBack(scratch);
  }

  static absl::Status Failure(const Part& part) {
    if (part.status < 0) return absl::ResourceExhaustedError("kvec: out of memory encoding texts");
    return absl::InvalidArgumentError("kvec: text " + std::to_string(part.failed_text) +
                                      " has a word that matches no piece, and the vocabulary has no "
                                      "unknown token");
  }

  SpecScratch* TakeScratch() {
    std::lock_guard<std::mutex> hold(lock_);
    if (idle_.empty()) return new SpecScratch();  // value-initialized: zeroed, ready
    SpecScratch* scratch = idle_.back();
    idle_.pop_back();
    return scratch;
  }

  void GiveBack(SpecScratch* scratch) {
    std::lock_guard<std::mutex> hold(lock_);
    idle_.push_back(scratch);
  }

  SpecEncoder encoder_;
  bool ready_ = false;
  std::mutex lock_;
  std::vector<SpecScratch*> idle_;  // scratches no call holds, each with its word cache
};

REGISTER_KERNEL_BUILDER(Name("KvecEncode").Device(DEVICE_CPU), KvecEncodeOp);

}  // namespace kvec
