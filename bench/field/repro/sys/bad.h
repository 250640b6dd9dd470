inline int g() { return undeclared_thing; }
