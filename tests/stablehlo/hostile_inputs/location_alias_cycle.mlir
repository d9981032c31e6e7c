func.func @f() {
  return loc(#a)
}
#a = loc(#b)
#b = loc(#a)
