#include "weights/restricted_unpickler.h"

#include <cstdio>
#include <cstring>

#include "workbench/errors.h"

namespace wb {

// Bytes of the pickle, read with bounds checks: a truncated pickle fails here, never reads past its end.
class RestrictedUnpickler::Cursor {
 public:
  Cursor(const std::string& bytes, const RestrictedUnpickler& owner) : m_bytes(bytes), m_owner(owner) {}
  bool atEnd() const { return m_at >= m_bytes.size(); }
  const char* take(uint64_t n) {
    if (n > m_bytes.size() - m_at) m_owner.fail("is truncated (an opcode's argument runs past its end)");
    const char* p = m_bytes.data() + m_at;
    m_at += static_cast<size_t>(n);
    return p;
  }
  uint8_t byte() { return static_cast<uint8_t>(*take(1)); }
  uint64_t littleEndian(int n) {
    const auto* p = reinterpret_cast<const unsigned char*>(take(static_cast<uint64_t>(n)));
    uint64_t value = 0;
    for (int i = n - 1; i >= 0; --i) value = (value << 8) | p[i];
    return value;
  }
  std::string line() {
    const size_t end = m_bytes.find('\n', m_at);
    if (end == std::string::npos) m_owner.fail("is truncated (a GLOBAL without its newline)");
    std::string text = m_bytes.substr(m_at, end - m_at);
    m_at = end + 1;
    return text;
  }

 private:
  const std::string& m_bytes;
  const RestrictedUnpickler& m_owner;
  size_t m_at = 0;
};

RestrictedUnpickler::RestrictedUnpickler(std::string source, Hooks hooks)
    : m_source(std::move(source)), m_hooks(std::move(hooks)) {}

void RestrictedUnpickler::fail(const std::string& what) const {
  throw UserError(
      "the pickle in " + m_source + " " + what + "; it was not loaded",
      "a weights file holds only tensors in dictionaries: save the model's state_dict() with torch.save, "
      "or export it as safetensors");
}

PickleValue* RestrictedUnpickler::make(PickleValue::Kind kind) {
  m_arena.emplace_back();
  m_arena.back().kind = kind;
  return &m_arena.back();
}

PickleValue* RestrictedUnpickler::pop() {
  if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back())) fail("pops an empty stack");
  PickleValue* value = m_stack.back();
  m_stack.pop_back();
  return value;
}

PickleValue* RestrictedUnpickler::top() {
  if (m_stack.empty() || (!m_marks.empty() && m_stack.size() <= m_marks.back())) fail("reads an empty stack");
  return m_stack.back();
}

void RestrictedUnpickler::push(PickleValue* value) {
  m_stack.push_back(value);
}

std::vector<PickleValue*> RestrictedUnpickler::popToMark() {
  if (m_marks.empty()) fail("closes a MARK it never opened");
  const size_t mark = m_marks.back();
  m_marks.pop_back();
  std::vector<PickleValue*> items(m_stack.begin() + static_cast<std::ptrdiff_t>(mark), m_stack.end());
  m_stack.resize(mark);
  return items;
}

void RestrictedUnpickler::memoPut(uint64_t index) {
  m_memo[index] = top();
}

PickleValue* RestrictedUnpickler::memoGet(uint64_t index) {
  const auto found = m_memo.find(index);
  if (found == m_memo.end()) fail("reads memo entry " + std::to_string(index) + ", which was never stored");
  return found->second;
}

void RestrictedUnpickler::pushGlobal(const std::string& module, const std::string& name) {
  const std::string global = module + "." + name;
  if (!m_hooks.allowGlobal(global)) {
    // Protocol 2 writes Python 2's module names, which Python's unpickler maps back (_compat_pickle): the
    // message names what would have run.
    static const std::map<std::string, std::string> kPython3 = {
        {"__builtin__", "builtins"}, {"commands", "subprocess"}, {"copy_reg", "copyreg"}};
    const auto renamed = kPython3.find(module);
    const std::string shown = renamed == kPython3.end() ? global : renamed->second + "." + name;
    fail("calls " + shown + (shown != global ? " (written " + global + ")" : std::string()) +
         ": a weights file holds only tensors");
  }
  PickleValue* value = make(PickleValue::Kind::Global);
  value->text = global;
  push(value);
}

void RestrictedUnpickler::setItems(PickleValue* dict, const std::vector<PickleValue*>& flat) {
  if (dict->kind != PickleValue::Kind::Dict) fail("sets items on something that is not a dictionary");
  if (flat.size() % 2 != 0) fail("sets a dictionary key without a value");
  for (size_t i = 0; i < flat.size(); i += 2) dict->entries.emplace_back(flat[i], flat[i + 1]);
}

bool RestrictedUnpickler::stepContainer(Cursor& in, uint8_t op) {
  (void)in;
  using Kind = PickleValue::Kind;
  switch (op) {
    case '}':  // EMPTY_DICT
      push(make(Kind::Dict));
      return true;
    case ']':  // EMPTY_LIST
      push(make(Kind::List));
      return true;
    case ')':  // EMPTY_TUPLE
      push(make(Kind::Tuple));
      return true;
    case '(':  // MARK
      m_marks.push_back(m_stack.size());
      return true;
    case 't': {  // TUPLE
      PickleValue* tuple = make(Kind::Tuple);
      tuple->items = popToMark();
      push(tuple);
      return true;
    }
    case 0x85:    // TUPLE1
    case 0x86:    // TUPLE2
    case 0x87: {  // TUPLE3
      PickleValue* tuple = make(Kind::Tuple);
      tuple->items.resize(op - 0x84);
      for (size_t i = tuple->items.size(); i-- > 0;) tuple->items[i] = pop();
      push(tuple);
      return true;
    }
    case 's': {  // SETITEM
      PickleValue* value = pop();
      PickleValue* key = pop();
      setItems(top(), {key, value});
      return true;
    }
    case 'u': {  // SETITEMS
      const std::vector<PickleValue*> flat = popToMark();
      setItems(top(), flat);
      return true;
    }
    case 'a':    // APPEND
    case 'e': {  // APPENDS
      const std::vector<PickleValue*> items = op == 'a' ? std::vector<PickleValue*>{pop()} : popToMark();
      PickleValue* list = top();
      if (list->kind != Kind::List) fail("appends to something that is not a list");
      list->items.insert(list->items.end(), items.begin(), items.end());
      return true;
    }
    case '0':  // POP
      pop();
      return true;
    case '1':  // POP_MARK
      popToMark();
      return true;
    default:
      return false;
  }
}

bool RestrictedUnpickler::stepScalar(Cursor& in, uint8_t op) {
  using Kind = PickleValue::Kind;
  PickleValue* value = nullptr;
  switch (op) {
    case 'X':    // BINUNICODE
    case 0x8c:   // SHORT_BINUNICODE
    case 0x8d:   // BINUNICODE8
    case 'T':    // BINSTRING (protocol 2 from Python 2)
    case 'U': {  // SHORT_BINSTRING
      const int width = (op == 0x8c || op == 'U') ? 1 : op == 0x8d ? 8 : 4;
      const uint64_t length = in.littleEndian(width);
      value = make(Kind::String);
      value->text.assign(in.take(length), static_cast<size_t>(length));
      break;
    }
    case 'J':  // BININT
      value = make(Kind::Int);
      value->integer = static_cast<int32_t>(static_cast<uint32_t>(in.littleEndian(4)));
      break;
    case 'K':  // BININT1
      value = make(Kind::Int);
      value->integer = in.byte();
      break;
    case 'M':  // BININT2
      value = make(Kind::Int);
      value->integer = static_cast<int64_t>(in.littleEndian(2));
      break;
    case 0x8a: {  // LONG1: n bytes, little-endian two's complement
      const int n = in.byte();
      if (n > 8) fail("holds an integer wider than 64 bits");
      uint64_t bits = n ? in.littleEndian(n) : 0;
      if (n > 0 && n < 8 && (bits >> (8 * n - 1)) & 1) bits |= ~0ull << (8 * n);  // sign-extend
      value = make(Kind::Int);
      value->integer = static_cast<int64_t>(bits);
      break;
    }
    case 'G': {  // BINFLOAT: big-endian double
      const auto* p = reinterpret_cast<const unsigned char*>(in.take(8));
      uint64_t bits = 0;
      for (int i = 0; i < 8; ++i) bits = (bits << 8) | p[i];
      value = make(Kind::Float);
      std::memcpy(&value->real, &bits, sizeof bits);
      break;
    }
    case 0x88:  // NEWTRUE
    case 0x89:  // NEWFALSE
      value = make(Kind::Bool);
      value->integer = op == 0x88;
      break;
    case 'N':  // NONE
      value = make(Kind::None);
      break;
    default:
      return false;
  }
  push(value);
  return true;
}

bool RestrictedUnpickler::stepMemo(Cursor& in, uint8_t op) {
  switch (op) {
    case 'q':  // BINPUT
      memoPut(in.byte());
      return true;
    case 'r':  // LONG_BINPUT
      memoPut(in.littleEndian(4));
      return true;
    case 0x94:  // MEMOIZE
      memoPut(m_memo.size());
      return true;
    case 'h':  // BINGET
      push(memoGet(in.byte()));
      return true;
    case 'j':  // LONG_BINGET
      push(memoGet(in.littleEndian(4)));
      return true;
    default:
      return false;
  }
}

bool RestrictedUnpickler::stepCall(Cursor& in, uint8_t op) {
  using Kind = PickleValue::Kind;
  switch (op) {
    case 'c': {  // GLOBAL "module\nname\n"
      const std::string module = in.line();
      pushGlobal(module, in.line());
      return true;
    }
    case 0x93: {  // STACK_GLOBAL
      PickleValue* name = pop();
      PickleValue* module = pop();
      if (module->kind != Kind::String || name->kind != Kind::String) fail("names a global with non-strings");
      pushGlobal(module->text, name->text);
      return true;
    }
    case 'R': {  // REDUCE: callable(*args), for an allowed global only
      PickleValue* args = pop();
      PickleValue* callable = pop();
      if (callable->kind != Kind::Global || args->kind != Kind::Tuple)
        fail("calls something that is not a global");
      push(m_hooks.reduce(callable->text, *args));
      return true;
    }
    case 'b': {  // BUILD: a state_dict's `_metadata` attribute (versions of its modules) is not needed
      pop();
      const Kind kind = top()->kind;
      if (kind != Kind::Dict && kind != Kind::Tensor)
        fail("sets the state of something that is not a dictionary or a tensor");
      return true;
    }
    case 'Q':  // BINPERSID
      push(m_hooks.persistentLoad(*pop()));
      return true;
    default:
      return false;
  }
}

void RestrictedUnpickler::step(Cursor& in, uint8_t op) {
  if (op == 0x80) {  // PROTO
    if (in.byte() > 5) fail("uses a pickle protocol newer than 5");
    return;
  }
  if (op == 0x95) {  // FRAME: a length hint only
    in.littleEndian(8);
    return;
  }
  if (op == '.') {  // STOP
    m_stopped = true;
    return;
  }
  if (stepContainer(in, op) || stepScalar(in, op) || stepMemo(in, op) || stepCall(in, op)) return;
  char code[8];
  std::snprintf(code, sizeof code, "0x%02x", op);
  fail(std::string("uses pickle opcode ") + code + ", which a state dict does not need");
}

const PickleValue& RestrictedUnpickler::load(const std::string& bytes) {
  Cursor in(bytes, *this);
  while (!m_stopped) {
    if (in.atEnd()) fail("ends before its STOP opcode (truncated)");
    step(in, in.byte());
  }
  if (m_stack.size() != 1 || !m_marks.empty())
    fail("leaves " + std::to_string(m_stack.size()) + " values at STOP");
  return *m_stack.back();
}

}  // namespace wb
