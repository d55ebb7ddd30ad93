// csrc/tf/kvec_ops.cc: kvec's TensorFlow op library, the layer's tokenizer as graph ops.
//
//   KvecEncode(texts: string[n], spec: string attr) -> values: int64[m], row_splits: int64[n + 1]
//       The ids of each UTF-8 text, as the kvec tokenizer described in `spec` gives them
//       (kvec/native_spec.py writes it; csrc/core/spec_encoder.h states it). Text i has ids
//       values[row_splits[i] : row_splits[i + 1]].
//   KvecSplit(texts: string[n], spec: string attr) -> words: string[m], row_splits: int64[n + 1]
//       The words of each text by the word splitter described in `spec`, as UTF-8.
//
// The kernels hold no rule of their own: they check the description once, when the op is built, and
// run the core's encoder (csrc/core/) over the texts, the code kvec's Python extensions run. The
// description is an attribute, so a SavedModel holds the whole tokenizer in its graph.
//
// tf.data builds a map function's kernels afresh for every iterator, so every pass over a dataset
// builds them again. One encoder per description is therefore shared by every kernel built from it,
// and the last kKeptEncoders described stay built when no kernel holds them: a later pass finds its
// encoder, with the word caches of the passes before it. A description is built and checked outside the
// process-wide lock of that table, so a slow or refused one (a SavedModel anyone may send) holds back no
// other model's kernels.
#include <algorithm>
#include <cstring>
#include <deque>
#include <map>
#include <memory>
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

absl::Status RaggedShape(InferenceContext* c) {
  ShapeHandle texts;
  TF_RETURN_IF_ERROR(c->WithRank(c->input(0), 1, &texts));
  DimensionHandle splits;
  TF_RETURN_IF_ERROR(c->Add(c->Dim(texts, 0), 1, &splits));
  c->set_output(0, c->Vector(c->UnknownDim()));
  c->set_output(1, c->Vector(splits));
  return absl::OkStatus();
}

REGISTER_OP("KvecEncode")
    .Input("texts: string")
    .Attr("spec: string")
    .Output("values: int64")
    .Output("row_splits: int64")
    .SetShapeFn(RaggedShape)
    .Doc("The ids of each UTF-8 text by the kvec tokenizer described in spec, as a ragged row.");

REGISTER_OP("KvecSplit")
    .Input("texts: string")
    .Attr("spec: string")
    .Output("words: string")
    .Output("row_splits: int64")
    .SetShapeFn(RaggedShape)
    .Doc("The words of each UTF-8 text by the kvec word splitter described in spec, as a ragged row.");

// A built encoder and the scratches no call holds, each with its word cache. The encoder is only read,
// so calls on several threads share it; each part of a call takes a scratch of its own.
class SharedEncoder {
 public:
  SharedEncoder() = default;
  SharedEncoder(const SharedEncoder&) = delete;
  SharedEncoder& operator=(const SharedEncoder&) = delete;

  ~SharedEncoder() {
    for (SpecScratch* scratch : idle_) {
      spec_scratch_free(scratch);
      delete scratch;
    }
    if (ready_) spec_encoder_free(&encoder_);
  }

  // nullptr once built, else what is wrong with the description
  const char* Build(const std::string& spec) {
    const char* error =
        spec_encoder_init(&encoder_, reinterpret_cast<const unsigned char*>(spec.data()), spec.size());
    ready_ = error == nullptr;
    return error;
  }

  const SpecEncoder* encoder() const { return &encoder_; }

  SpecScratch* TakeScratch() {
    std::lock_guard<std::mutex> hold(lock_);
    if (idle_.empty()) return new SpecScratch();  // value-initialized: zeroed, ready
    SpecScratch* scratch = idle_.back();
    idle_.pop_back();
    return scratch;
  }

  void GiveBack(SpecScratch* scratch) {
    if (scratch == nullptr) return;
    std::lock_guard<std::mutex> hold(lock_);
    idle_.push_back(scratch);
  }

 private:
  SpecEncoder encoder_;
  bool ready_ = false;
  std::mutex lock_;
  std::vector<SpecScratch*> idle_;
};

// The process's encoders by description: the one a live kernel holds, or one of the last kKeptEncoders
// built or found, else a new one, built outside the lock; when two kernels build one description at
// once, the first to insert its encoder is the one both keep.
class Encoders {
 public:
  static constexpr size_t kKeptEncoders = 4;

  static absl::Status Find(const std::string& spec, std::shared_ptr<SharedEncoder>* found) {
    static Encoders* encoders = new Encoders();  // never destroyed: kernels may outlive static destructors
    return encoders->FindOrBuild(spec, found);
  }

 private:
  absl::Status FindOrBuild(const std::string& spec, std::shared_ptr<SharedEncoder>* found) {
    std::shared_ptr<SharedEncoder> dropped;  // an encoder no longer kept, freed after the lock is let go
    {
      std::lock_guard<std::mutex> hold(lock_);
      *found = Live(spec);
      if (*found != nullptr) {
        dropped = Keep(*found);
        return absl::OkStatus();
      }
    }
    auto built = std::make_shared<SharedEncoder>();
    const char* error = built->Build(spec);  // O(its size), without the lock
    if (error != nullptr) {
      return absl::InvalidArgumentError(std::string("kvec: the pipeline description is wrong: ") + error);
    }
    std::lock_guard<std::mutex> hold(lock_);
    *found = Live(spec);  // built meanwhile by another kernel: that one is kept, this one dropped
    if (*found == nullptr) {
      live_[spec] = built;
      *found = built;
    }
    dropped = Keep(*found);
    return absl::OkStatus();
  }

  // The live encoder of spec, or nullptr; the encoders no one holds are forgotten. Under lock_.
  std::shared_ptr<SharedEncoder> Live(const std::string& spec) {
    for (auto entry = live_.begin(); entry != live_.end();) {
      entry = entry->second.expired() ? live_.erase(entry) : std::next(entry);
    }
    auto entry = live_.find(spec);
    return entry == live_.end() ? nullptr : entry->second.lock();
  }

  // encoder made the newest kept; the one that is no longer kept, if any, returned. Under lock_.
  std::shared_ptr<SharedEncoder> Keep(const std::shared_ptr<SharedEncoder>& encoder) {
    for (auto kept = kept_.begin(); kept != kept_.end(); ++kept) {
      if (*kept == encoder) {
        kept_.erase(kept);
        break;
      }
    }
    kept_.push_front(encoder);
    std::shared_ptr<SharedEncoder> dropped;
    if (kept_.size() > kKeptEncoders) {
      dropped = std::move(kept_.back());
      kept_.pop_back();
    }
    return dropped;
  }

  std::mutex lock_;
  std::map<std::string, std::weak_ptr<SharedEncoder>> live_;
  std::deque<std::shared_ptr<SharedEncoder>> kept_;  // the newest first
};

// What both kernels share: the checked description's encoder, and the encoding of a batch in parts of
// at least kTextsPerPart texts on TensorFlow's intra-op threads. Compute may run on several threads at
// once.
class SpecKernel : public OpKernel {
 public:
  explicit SpecKernel(OpKernelConstruction* context, bool splits_words) : OpKernel(context) {
    std::string spec;
    OP_REQUIRES_OK(context, context->GetAttr("spec", &spec));
    OP_REQUIRES_OK(context, Encoders::Find(spec, &shared_));
    OP_REQUIRES(context, (shared_->encoder()->model_kind == SPEC_MODEL_SPLIT) == splits_words,
                absl::InvalidArgumentError(splits_words ? "kvec: KvecSplit needs a word splitter's description"
                                                        : "kvec: KvecEncode needs a tokenizer's description"));
  }

 protected:
  static constexpr int64_t kTextsPerPart = 64;

  struct Part {
    int64_t first = 0, last = 0;  // its texts
    Int64s values = {nullptr, 0, 0};
    SpecScratch* scratch = nullptr;
    int status = 0;
    int64_t failed_text = 0;
  };

  // The texts encoded in parts; splits[i + 1] holds the end of text i within its part. The parts hold
  // their scratches until ReleaseParts.
  using Texts = tensorflow::TTypes<tensorflow::tstring>::ConstFlat;

  std::vector<Part> EncodeParts(OpKernelContext* context, const Texts& flat, int64_t* splits) {
    const int64_t n = flat.size();
    auto* workers = context->device()->tensorflow_cpu_worker_threads();
    const int64_t n_parts = std::max<int64_t>(1, std::min<int64_t>(workers->num_threads, n / kTextsPerPart));
    std::vector<Part> parts(n_parts);
    auto encode_parts = [&](int64_t first, int64_t last) {
      for (int64_t p = first; p < last; p++) {
        parts[p].first = n * p / n_parts;
        parts[p].last = n * (p + 1) / n_parts;
        EncodePart(flat, splits, &parts[p]);
      }
    };
    if (n_parts == 1) encode_parts(0, 1);
    else workers->workers->ParallelFor(n_parts, SchedulingParams::Fixed(1), encode_parts);
    return parts;
  }

  // The first failure of the parts, else OK; the splits made whole (each part's ends shifted by the
  // values before it) and their total in *total.
  static absl::Status JoinParts(const std::vector<Part>& parts, int64_t* splits, int64_t* total) {
    *total = 0;
    for (const Part& part : parts) {
      if (part.status != 0) return Failure(part);
      for (int64_t i = part.first; i < part.last; i++) splits[i + 1] += *total;
      *total += part.values.length;
    }
    return absl::OkStatus();
  }

  // The whole of Compute but what goes in output 0: the texts encoded in parts, row_splits made, and
  // output 0 allocated with an entry per value; fill(output, part, offset) puts a part's there.
  template <typename Fill>
  void ComputeParts(OpKernelContext* context, Fill fill) {
    const Tensor& texts = context->input(0);
    OP_REQUIRES(context, TensorShapeUtils::IsVector(texts.shape()),
                absl::InvalidArgumentError("kvec: texts must be a vector of strings"));
    auto flat = texts.flat<tensorflow::tstring>();
    Tensor* row_splits = nullptr;
    OP_REQUIRES_OK(context, context->allocate_output(1, TensorShape({flat.size() + 1}), &row_splits));
    int64_t* splits = row_splits->flat<int64_t>().data();
    splits[0] = 0;
    std::vector<Part> parts = EncodeParts(context, flat, splits);
    int64_t total = 0;
    Tensor* output = nullptr;
    absl::Status status = JoinParts(parts, splits, &total);
    if (status.ok()) status = context->allocate_output(0, TensorShape({total}), &output);
    if (status.ok()) {
      int64_t offset = 0;
      for (const Part& part : parts) {
        fill(output, part, offset);
        offset += part.values.length;
      }
    }
    ReleaseParts(&parts);
    OP_REQUIRES_OK(context, status);
  }

  void ReleaseParts(std::vector<Part>* parts) {
    for (Part& part : *parts) {
      int64s_free(&part.values);
      shared_->GiveBack(part.scratch);
    }
  }

 private:
  void EncodePart(const Texts& flat, int64_t* splits, Part* part) {
    const SpecEncoder* encoder = shared_->encoder();
    part->scratch = shared_->TakeScratch();
    part->scratch->utf8_length = 0;
    for (int64_t i = part->first; i < part->last && part->status == 0; i++) {
      const tensorflow::tstring& text = flat(i);
      part->status = spec_encode(encoder, reinterpret_cast<const unsigned char*>(text.data()), text.size(),
                                 &part->values, part->scratch);
      splits[i + 1] = part->values.length;
      part->failed_text = i;
    }
  }

  static absl::Status Failure(const Part& part) {
    if (part.status < 0) return absl::ResourceExhaustedError("kvec: out of memory encoding texts");
    if (part.status == SPEC_GROWS) {
      return absl::InvalidArgumentError("kvec: text " + std::to_string(part.failed_text) +
                                        " would grow past 32 code points per code point when normalized");
    }
    return absl::InvalidArgumentError("kvec: text " + std::to_string(part.failed_text) +
                                      " has a word that matches no piece, and the vocabulary has no "
                                      "unknown token");
  }

  std::shared_ptr<SharedEncoder> shared_;
};

class KvecEncodeOp : public SpecKernel {
 public:
  explicit KvecEncodeOp(OpKernelConstruction* context) : SpecKernel(context, false) {}

  void Compute(OpKernelContext* context) override {
    ComputeParts(context, [](Tensor* output, const Part& part, int64_t offset) {
      if (part.values.length) {
        std::memcpy(output->flat<int64_t>().data() + offset, part.values.data, sizeof(int64_t) * part.values.length);
      }
    });
  }
};

class KvecSplitOp : public SpecKernel {
 public:
  explicit KvecSplitOp(OpKernelConstruction* context) : SpecKernel(context, true) {}

  void Compute(OpKernelContext* context) override {
    ComputeParts(context, [](Tensor* output, const Part& part, int64_t offset) {
      auto words = output->flat<tensorflow::tstring>();
      const char* utf8 = reinterpret_cast<const char*>(part.scratch->utf8);
      for (int64_t k = 0; k < part.values.length; k++) {
        int64_t start = k ? part.values.data[k - 1] : 0;
        words(offset + k).assign(utf8 + start, part.values.data[k] - start);
      }
    });
  }
};

REGISTER_KERNEL_BUILDER(Name("KvecEncode").Device(DEVICE_CPU), KvecEncodeOp);
REGISTER_KERNEL_BUILDER(Name("KvecSplit").Device(DEVICE_CPU), KvecSplitOp);

}  // namespace kvec
