#pragma once
// A pickle reader for torch.save's data.pkl that executes nothing: it knows the opcodes a state dict uses
// (protocol 2 to 4: containers, numbers, strings, memo, GLOBAL, REDUCE, BUILD, BINPERSID) and builds plain
// values. A GLOBAL is only a name here; it is checked against the caller's allow-list the moment it is read,
// and a REDUCE (a call) or BINPERSID (a persistent id) is handed to the caller's hooks, which construct only
// what they recognize. Anything else — another global, an unknown opcode — throws UserError naming it.

#include <torch/torch.h>

#include <cstdint>
#include <deque>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace wb {

struct PickleValue {
  enum class Kind { None, Bool, Int, Float, String, Tuple, List, Dict, Global, Storage, Tensor };
  Kind kind = Kind::None;
  int64_t integer = 0;              // Bool, Int
  double real = 0;                  // Float
  std::string text;                 // String; Global as "module.name"; Storage: its key
  std::vector<PickleValue*> items;  // Tuple, List
  std::vector<std::pair<PickleValue*, PickleValue*>> entries;  // Dict, in insertion order
  torch::Tensor tensor;                                        // Storage (flat), Tensor
};

class RestrictedUnpickler {
 public:
  struct Hooks {
    std::function<bool(const std::string& global)> allowGlobal;
    // Calls `global` (an allowed one) with `args` (a Tuple); returns a value made with make().
    std::function<PickleValue*(const std::string& global, const PickleValue& args)> reduce;
    std::function<PickleValue*(const PickleValue& persistentId)> persistentLoad;
  };

  // `source` names the pickle in messages ("the pickle in FILE").
  RestrictedUnpickler(std::string source, Hooks hooks);

  // The value STOP returns; it lives as long as this object.
  const PickleValue& load(const std::string& bytes);

  PickleValue* make(PickleValue::Kind kind);

  // Throws UserError "the pickle in FILE <what>".
  [[noreturn]] void fail(const std::string& what) const;

 private:
  class Cursor;
  void step(Cursor& in, uint8_t op);
  bool stepContainer(Cursor& in, uint8_t op);
  bool stepScalar(Cursor& in, uint8_t op);
  bool stepMemo(Cursor& in, uint8_t op);
  bool stepCall(Cursor& in, uint8_t op);
  PickleValue* pop();
  PickleValue* top();
  std::vector<PickleValue*> popToMark();
  void push(PickleValue* value);
  void pushGlobal(const std::string& module, const std::string& name);
  void memoPut(uint64_t index);
  PickleValue* memoGet(uint64_t index);
  void setItems(PickleValue* dict, const std::vector<PickleValue*>& flat);

  std::string m_source;
  Hooks m_hooks;
  std::deque<PickleValue> m_arena;  // every value; pointers into a deque stay valid
  std::vector<PickleValue*> m_stack;
  std::vector<size_t> m_marks;
  std::map<uint64_t, PickleValue*> m_memo;
  bool m_stopped = false;
};

}  // namespace wb
